internal import CTurboJPEG
import Imaging

/// A failure reported by libturbojpeg, with its message and what camlib was doing.
public struct JPEGError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let context: String
    public var description: String { "\(context): \(message)" }
}

/// JPEG decoding and encoding through libturbojpeg.
public enum JPEGCodec {
    /// A decoded JPEG: pixels as stored (EXIF orientation not applied), and libjpeg's
    /// warning when the data was damaged but still decodable (a truncated scan, say).
    public struct Decoded: Sendable {
        public var pixels: PixelBuffer<UInt8>
        public var warning: String?
    }

    /// What to decode a JPEG to.
    public enum Output: Sendable {
        case rgb, gray
        /// Gray for a one-component JPEG, RGB otherwise.
        case asStored
    }

    /// The width and height its header declares, without decoding.
    public static func dimensions(_ jpeg: [UInt8]) throws -> (width: Int, height: Int) {
        guard let tj = tjInitDecompress() else { throw JPEGError(message: "cannot initialise libturbojpeg", context: "decoding") }
        defer { tjDestroy(tj) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(tj, $0.baseAddress, UInt(jpeg.count), &w, &h, &sub, &cs) }
        guard rc == 0 else { throw JPEGError(message: errorString(tj), context: "reading the header") }
        return (Int(w), Int(h))
    }

    /// Decodes to RGB (or gray) at the smallest DCT scale (1/8 … 1) whose size still
    /// covers `atLeast` on its longest side, which is much faster than a full decode.
    public static func decode(_ jpeg: [UInt8], atLeast minimumLongSide: Int? = nil, output: Output = .rgb) throws -> Decoded {
        guard let tj = tjInitDecompress() else { throw JPEGError(message: "cannot initialise libturbojpeg", context: "decoding") }
        defer { tjDestroy(tj) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(tj, $0.baseAddress, UInt(jpeg.count), &w, &h, &sub, &cs) }
        guard rc == 0 else { throw JPEGError(message: errorString(tj), context: "reading the header") }
        // A scaled-down decode of a baseline JPEG holds only its output; a progressive one
        // holds every coefficient of the whole picture, and a full decode every pixel.
        if minimumLongSide == nil || isProgressive(jpeg), let refusal = DecodeLimits.refusal(width: Int(w), height: Int(h)) {
            throw JPEGError(message: refusal, context: "reading the header")
        }

        var (outW, outH) = (Int(w), Int(h))
        if let minimumLongSide {
            var count: Int32 = 0
            if let factors = tjGetScalingFactors(&count) {
                // Smallest scale that keeps the long side at or above the target.
                var best = (Int(w), Int(h))
                for i in 0..<Int(count) {
                    let f = factors[i]
                    guard f.num <= f.denom else { continue }
                    let sw = (Int(w) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                    let sh = (Int(h) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                    if max(sw, sh) >= minimumLongSide && sw * sh < best.0 * best.1 { best = (sw, sh) }
                }
                (outW, outH) = best
            }
        }
        let gray = output == .gray || (output == .asStored && cs == Int32(TJCS_GRAY.rawValue))
        let channels = gray ? 1 : 3
        var pixels = PixelBuffer<UInt8>(width: outW, height: outH, channels: channels)
        let drc = jpeg.withUnsafeBufferPointer { src in
            pixels.components.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    tj, src.baseAddress, UInt(jpeg.count), dst.baseAddress, Int32(outW), Int32(outW * channels), Int32(outH),
                    Int32(gray ? TJPF_GRAY.rawValue : TJPF_RGB.rawValue), 0)
            }
        }
        var warning: String?
        if drc != 0 {
            // libjpeg warnings (corrupt or truncated data) still leave a usable image.
            guard tjGetErrorCode(tj) == Int32(TJERR_WARNING.rawValue) else {
                throw JPEGError(message: errorString(tj), context: "decoding")
            }
            warning = errorString(tj)
        }
        return Decoded(pixels: pixels, warning: warning)
    }

    /// Whether the JPEG is progressive (its frame header is SOF2, SOF6, SOF10 or SOF14),
    /// read from its markers up to the frame header.
    public static func isProgressive(_ jpeg: [UInt8]) -> Bool {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let marker = jpeg[i + 1]
            if marker == 0xFF { i += 1; continue }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        return false
    }

    /// Encodes 8-bit gray or RGB pixels as a baseline (or `progressive`) JPEG (4:2:0 for colour).
    public static func encode(_ pixels: PixelBuffer<UInt8>, quality: Int = 85, progressive: Bool = false) throws -> [UInt8] {
        precondition(pixels.channels == 1 || pixels.channels == 3, "JPEG holds gray or RGB")
        // tjInitCompress → tjDestroy; the output buffer tjCompress2 allocates → tjFree.
        guard let tj = tjInitCompress() else { throw JPEGError(message: "cannot initialise libturbojpeg", context: "encoding") }
        defer { tjDestroy(tj) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let gray = pixels.channels == 1
        let rc = pixels.components.withUnsafeBufferPointer { src in
            tjCompress2(
                tj, src.baseAddress, Int32(pixels.width), Int32(pixels.rowStride), Int32(pixels.height),
                Int32(gray ? TJPF_GRAY.rawValue : TJPF_RGB.rawValue), &out, &size,
                Int32(gray ? TJSAMP_GRAY.rawValue : TJSAMP_420.rawValue), Int32(quality), progressive ? TJFLAG_PROGRESSIVE : 0)
        }
        defer { if let out { tjFree(out) } }
        guard rc == 0, let out else { throw JPEGError(message: errorString(tj), context: "encoding") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    static func errorString(_ tj: tjhandle) -> String {
        guard let s = tjGetErrorStr2(tj) else { return "unknown libturbojpeg error" }
        return String(cString: s)
    }
}
