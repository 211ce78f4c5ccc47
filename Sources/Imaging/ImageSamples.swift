/// Pixels whose sample size is known only at run time: what an auxiliary image (depth,
/// disparity, matte, gain map) or a lossless PNG holds. 16-bit samples carry how many of
/// their bits are significant (a 10-bit HEVC plane is stored in 16 bits).
public enum ImageSamples: Sendable, Equatable {
    case eight(PixelBuffer<UInt8>)
    case sixteen(PixelBuffer<UInt16>, significantBits: Int)

    public var width: Int {
        switch self {
        case .eight(let p): p.width
        case .sixteen(let p, _): p.width
        }
    }

    public var height: Int {
        switch self {
        case .eight(let p): p.height
        case .sixteen(let p, _): p.height
        }
    }

    public var channels: Int {
        switch self {
        case .eight(let p): p.channels
        case .sixteen(let p, _): p.channels
        }
    }

    /// Bits of information per sample: 8, or the significant bits of a 16-bit buffer.
    public var bitDepth: Int {
        switch self {
        case .eight: 8
        case .sixteen(_, let bits): bits
        }
    }

    public func applying(_ orientation: EXIFOrientation) -> ImageSamples {
        switch self {
        case .eight(let p): .eight(p.applying(orientation))
        case .sixteen(let p, let bits): .sixteen(p.applying(orientation), significantBits: bits)
        }
    }
}
