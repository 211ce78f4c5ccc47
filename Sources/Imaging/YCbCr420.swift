/// One picture of 8-bit Y'CbCr 4:2:0 planes, as a video decoder gives it and an encoder
/// takes it: luma at full size, each chroma plane at half the width and half the
/// height. The planes belong to whoever made them (an FFmpeg frame); a drawer writes
/// each row once.
/// `@unchecked Sendable`: pointers into a frame its owner keeps alive while drawers write it, each row by one drawer.
public struct YCbCr420Planes: @unchecked Sendable {
    public var luma: UnsafeMutablePointer<UInt8>
    public var lumaStride: Int
    public var cb: UnsafeMutablePointer<UInt8>
    public var cr: UnsafeMutablePointer<UInt8>
    public var chromaStride: Int
    /// The luma plane's size.
    public var width: Int
    public var height: Int
    /// Full-range levels (0 ... 255, JPEG's) rather than video's 16 ... 235 and 16 ... 240.
    public var fullRange: Bool

    public init(
        luma: UnsafeMutablePointer<UInt8>, lumaStride: Int, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>,
        chromaStride: Int, width: Int, height: Int, fullRange: Bool
    ) {
        (self.luma, self.lumaStride, self.cb, self.cr, self.chromaStride) = (luma, lumaStride, cb, cr, chromaStride)
        (self.width, self.height, self.fullRange) = (width, height, fullRange)
    }
}

/// BT.709's Y'CbCr, the matrix camlib converts movie frames with both ways (as it asks
/// swscale to): luma from R'G'B' and each colour difference's span.
public enum BT709 {
    public static let kr: Float = 0.2126, kg: Float = 0.7152, kb: Float = 0.0722
    /// Cb = (B' − Y') / cbSpan, Cr = (R' − Y') / crSpan, each within ±½ of the range.
    public static let cbSpan: Float = 1.8556, crSpan: Float = 1.5748
}
