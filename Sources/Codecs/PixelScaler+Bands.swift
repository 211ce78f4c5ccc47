internal import CFFmpeg
import Imaging

extension PixelScaler {
    /// Pictures of more pixels than this are scaled for thumbnails and previews from
    /// bands of rows (PNGs) or rows of tiles (HEIC grids), not decoded whole: the size
    /// above which edits render by bands and tiles too.
    public static let bandedAbovePixels = 40_000_000

    /// The size `scaledToFit` gives a `width`×`height` picture for `maxSide`.
    static func fittedSize(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > maxSide else { return (width, height) }
        let scale = Double(maxSide) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// A picture too large to hold whole, scaled to fit `maxSide` as ``scaledToFit(_:maxSide:)``
    /// scales it, to the same samples, from its rows given top to bottom a band at a time
    /// (libswscale's slices: it keeps what its filter still needs of the rows before).
    public final class Bands {
        public let width: Int, height: Int, channels: Int
        /// The scaled picture, complete once every row has been added.
        private var picture: PixelBuffer<UInt8>
        /// Nil when the picture fits: its rows are copied as they are.
        private let sws: OpaquePointer?
        private var added = 0

        /// For a `width`×`height` picture of `channels` (3, RGB, or 1, gray).
        public init(width: Int, height: Int, channels: Int, maxSide: Int) throws {
            precondition(channels == 3 || channels == 1, "RGB or gray")
            precondition(width > 0 && height > 0, "a picture has pixels")
            (self.width, self.height, self.channels) = (width, height, channels)
            let size = fittedSize(width: width, height: height, maxSide: maxSide)
            picture = PixelBuffer(width: size.width, height: size.height, channels: channels)
            guard size != (width, height) else {
                sws = nil
                return
            }
            try FFmpegLibrary.load()
            let format = channels == 3 ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_GRAY8
            // sws_getContext here → sws_freeContext in deinit.
            guard let sws = ff.sws_getContext(
                Int32(width), Int32(height), format, Int32(size.width), Int32(size.height), format, swsFlags, nil, nil, nil)
            else { throw FFmpegError(message: "cannot scale \(width)x\(height) to \(size.width)x\(size.height)", call: "sws_getContext") }
            self.sws = sws
        }

        deinit {
            if let sws { ff.sws_freeContext(sws) }
        }

        /// The picture's next rows (its full width, the same channels).
        public func add(_ rows: borrowing PixelBuffer<UInt8>) {
            precondition(rows.width == width && rows.channels == channels && added + rows.height <= height, "the picture's next rows")
            defer { added += rows.height }
            guard let sws else {
                let length = width * channels
                picture.components.replaceSubrange((added * length)..<((added + rows.height) * length), with: rows.components)
                return
            }
            let (w, channels, first) = (picture.width, channels, added)
            rows.components.withUnsafeBufferPointer { src in
                picture.components.withUnsafeMutableBufferPointer { dst in
                    var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                    var srcStrides: [Int32] = [Int32(rows.rowStride), 0, 0, 0]
                    // The whole output each time: libswscale writes the rows this slice completes.
                    var dstPlanes: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
                    var dstStrides: [Int32] = [Int32(w * channels), 0, 0, 0]
                    _ = ff.sws_scale(sws, &srcPlanes, &srcStrides, Int32(first), Int32(rows.height), &dstPlanes, &dstStrides)
                }
            }
        }

        /// The scaled picture; an error when rows are missing.
        public func finish() throws -> PixelBuffer<UInt8> {
            guard added == height else {
                throw FFmpegError(message: "the picture's rows ended at \(added) of \(height)", call: "sws_scale")
            }
            return picture
        }
    }
}
