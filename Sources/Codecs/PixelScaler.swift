internal import CFFmpeg
import Imaging

/// Downscaling through libswscale's area filter (the same filter `posterFrame` uses),
/// much faster than a Swift loop and with the same box-average result.
public enum PixelScaler {
    /// `pixels` (RGB or gray) scaled to fit `maxSide`, aspect kept; unchanged when it fits.
    public static func scaledToFit(_ pixels: PixelBuffer<UInt8>, maxSide: Int) throws -> PixelBuffer<UInt8> {
        precondition(pixels.channels == 3 || pixels.channels == 1, "RGB or gray")
        guard max(pixels.width, pixels.height) > maxSide, pixels.width > 0, pixels.height > 0 else { return pixels }
        try FFmpegLibrary.load()
        let (w, h) = fittedSize(width: pixels.width, height: pixels.height, maxSide: maxSide)
        let format = pixels.channels == 3 ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_GRAY8
        // sws_getContext → sws_freeContext.
        guard let sws = ff.sws_getContext(
            Int32(pixels.width), Int32(pixels.height), format, Int32(w), Int32(h), format, swsFlags, nil, nil, nil)
        else { throw FFmpegError(message: "cannot scale \(pixels.width)x\(pixels.height) to \(w)x\(h)", call: "sws_getContext") }
        defer { ff.sws_freeContext(sws) }
        var out = PixelBuffer<UInt8>(width: w, height: h, channels: pixels.channels)
        pixels.components.withUnsafeBufferPointer { src in
            out.components.withUnsafeMutableBufferPointer { dst in
                var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                var srcStrides: [Int32] = [Int32(pixels.rowStride), 0, 0, 0]
                var dstPlanes: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
                var dstStrides: [Int32] = [Int32(w * pixels.channels), 0, 0, 0]
                _ = ff.sws_scale(sws, &srcPlanes, &srcStrides, 0, Int32(pixels.height), &dstPlanes, &dstStrides)
            }
        }
        return out
    }

    /// Area scaling with full chroma: without it libswscale scales RGB through
    /// subsampled chroma, which smears colour edges and makes a picture scaled in slices
    /// (``Bands``) differ from it scaled whole by up to a tenth of the range.
    static let swsFlags = SWS_AREA | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP
}
