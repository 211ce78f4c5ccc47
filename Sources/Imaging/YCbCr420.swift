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
    /// How the samples encode R'G'B'.
    public var matrix: YCbCrMatrix

    public init(
        luma: UnsafeMutablePointer<UInt8>, lumaStride: Int, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>,
        chromaStride: Int, width: Int, height: Int, fullRange: Bool, matrix: YCbCrMatrix = .bt709
    ) {
        (self.luma, self.lumaStride, self.cb, self.cr, self.chromaStride) = (luma, lumaStride, cb, cr, chromaStride)
        (self.width, self.height, self.fullRange, self.matrix) = (width, height, fullRange, matrix)
    }
}

/// A Y'CbCr matrix: luma from R'G'B' and each colour difference's span. Movies are
/// converted with BT.709 both ways (as camlib asks swscale to); HEIC stills with BT.601,
/// what libheif reads and writes them with unless a file says otherwise.
public struct YCbCrMatrix: Sendable, Equatable {
    /// Y' = kr·R' + kg·G' + kb·B'.
    public let kr: Float, kg: Float, kb: Float
    /// Cb = (B' − Y') / cbSpan, Cr = (R' − Y') / crSpan, each within ±½ of the range.
    public let cbSpan: Float, crSpan: Float

    public init(kr: Float, kb: Float) {
        (self.kr, self.kb, kg) = (kr, kb, 1 - kr - kb)
        (cbSpan, crSpan) = (2 * (1 - kb), 2 * (1 - kr))
    }

    /// ITU-R BT.709 (HD video; H.273 matrix_coefficients 1).
    public static let bt709 = YCbCrMatrix(kr: 0.2126, kb: 0.0722)
    /// ITU-R BT.601 (SD video, JPEG, and HEIC as libheif codes it; H.273 5 and 6).
    public static let bt601 = YCbCrMatrix(kr: 0.299, kb: 0.114)

    /// The matrix an H.273 `matrix_coefficients` code names, if it is one of these.
    public init?(h273 code: Int) {
        switch code {
        case 1: self = .bt709
        case 5, 6: self = .bt601
        default: return nil
        }
    }
}
