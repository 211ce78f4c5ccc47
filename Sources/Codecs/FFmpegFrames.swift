internal import CFFmpeg

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
