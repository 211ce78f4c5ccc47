internal import CFFmpeg
import Imaging

/// An AVFrame's planes and line sizes as the arrays sws_scale takes (AVFrame holds them
/// as fixed-size C arrays, which Swift sees as tuples).
struct FramePlanes {
    var planes: [UnsafeMutablePointer<UInt8>?]
    var strides: [Int32]

    init(_ frame: UnsafeMutablePointer<AVFrame>) {
        let d = frame.pointee.data, l = frame.pointee.linesize
        planes = [d.0, d.1, d.2, d.3, d.4, d.5, d.6, d.7]
        strides = [l.0, l.1, l.2, l.3, l.4, l.5, l.6, l.7]
    }

    /// The planes read-only, for sws_scale's source.
    var sources: [UnsafePointer<UInt8>?] { planes.map { $0.map { UnsafePointer($0) } } }
}

extension YCbCr420Planes {
    /// A 4:2:0 frame's three planes (its format checked by the caller), at `fullRange`
    /// levels or video's; nil when the frame does not hold them as such.
    init?(_ frame: UnsafeMutablePointer<AVFrame>, fullRange: Bool) {
        let d = frame.pointee.data, l = frame.pointee.linesize
        guard let y = d.0, let cb = d.1, let cr = d.2, l.1 == l.2, l.0 > 0, l.1 > 0 else { return nil }
        self.init(
            luma: y, lumaStride: Int(l.0), cb: cb, cr: cr, chromaStride: Int(l.1),
            width: Int(frame.pointee.width), height: Int(frame.pointee.height), fullRange: fullRange)
    }
}
