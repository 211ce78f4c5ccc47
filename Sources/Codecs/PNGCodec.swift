internal import CZlib
internal import CPNG
internal import CPNGCodec
#if canImport(Glibc)
import Glibc
#endif
import Imaging

/// A failure reported by libpng, with its message.
public struct PNGError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "PNG: \(message)" }
}

/// PNG decoding through libpng's simplified API (it handles palettes, 16-bit, gamma,
/// interlacing and transparency).
public enum PNGCodec {
    /// The Exif TIFF block of a `zTXt` chunk's data holding ImageMagick's "Raw profile
    /// type exif" (zlib-compressed text: a name, a length, then hex digits of "Exif\0\0"
    /// and the TIFF block), how PNGs carried Exif before the eXIf chunk; nil otherwise.
    public static func rawExifProfile(zTXt data: ArraySlice<UInt8>) -> [UInt8]? {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        guard data.starts(with: keyword), data.count > keyword.count + 1, data[data.startIndex + keyword.count] == 0 else { return nil }
        guard let text = try? RawDeflate.inflate(Array(data.dropFirst(keyword.count + 1)), limit: 4 << 20, zlibWrapped: true) else { return nil }
        let words = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count >= 3, words[0] == "exif", let length = Int(words[1]) else { return nil }
        let hex = Array(words.dropFirst(2).joined().utf8)
        guard hex.count == length * 2 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for i in stride(from: 0, to: hex.count, by: 2) {
            guard let high = nibble(hex[i]), let low = nibble(hex[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        let header = Array("Exif".utf8) + [0, 0]
        return bytes.starts(with: header) ? Array(bytes.dropFirst(header.count)) : bytes
    }

    /// One chunk as it is stored: length, type, data and the CRC-32 of type and data
    /// (zlib's, the PNG specification's polynomial).
    public static func chunk(type: String, data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "a PNG chunk type has four letters")
        let crc = (typeBytes + data).withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        return be(UInt32(data.count)) + typeBytes + data + be(crc)
    }

    /// Decodes to 8-bit RGB, compositing any transparency onto white. 16-bit samples
    /// without a gAMA or sRGB chunk are taken as sRGB, as browsers take them (libpng
    /// would take them for linear light).
    public static func decodeRGB(_ png: [UInt8]) throws -> PixelBuffer<UInt8> {
        var image = png_image()
        image.version = cpng_image_version()
        let ok = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError(message: message(image)) }
        // From here until png_image_finish_read, png_image_free releases libpng's state.
        image.format = cpng_format_rgb()
        image.flags |= cpng_flag_16bit_srgb()
        let w = Int(image.width), h = Int(image.height)
        if let refusal = DecodeLimits.refusal(width: w, height: h) {
            png_image_free(&image)
            throw PNGError(message: refusal)
        }
        var pixels = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        var white = png_color(red: 255, green: 255, blue: 255)
        let done = pixels.components.withUnsafeMutableBytes { dst in
            png_image_finish_read(&image, &white, dst.baseAddress, Int32(w * 3), nil)
        }
        guard done != 0 else {
            let text = message(image)
            png_image_free(&image)
            throw PNGError(message: text)
        }
        return pixels
    }

    /// Decodes to 8-bit RGB and, when the PNG has transparency, its 8-bit alpha plane
    /// (as libpng's simplified API gives them: palettes expanded, 16-bit reduced).
    public static func decodeRGBKeepingAlpha(_ png: [UInt8]) throws -> (rgb: PixelBuffer<UInt8>, alpha: [UInt8]?) {
        var image = png_image()
        image.version = cpng_image_version()
        let ok = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError(message: message(image)) }
        // Alpha in the file (an alpha channel or a tRNS chunk): PNG_FORMAT_FLAG_ALPHA.
        guard image.format & 0x01 != 0 else {
            png_image_free(&image)
            return (try decodeRGB(png), nil)
        }
        image.format = cpng_format_rgb() | 0x01
        image.flags |= cpng_flag_16bit_srgb()
        let w = Int(image.width), h = Int(image.height)
        if let refusal = DecodeLimits.refusal(width: w, height: h) {
            png_image_free(&image)
            throw PNGError(message: refusal)
        }
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let done = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * 4), nil) }
        guard done != 0 else {
            let text = message(image)
            png_image_free(&image)
            throw PNGError(message: text)
        }
        var rgb = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        var alpha = [UInt8](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            rgb.components[i * 3] = rgba[i * 4]
            rgb.components[i * 3 + 1] = rgba[i * 4 + 1]
            rgb.components[i * 3 + 2] = rgba[i * 4 + 2]
            alpha[i] = rgba[i * 4 + 3]
        }
        return (rgb, alpha)
    }

    static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "unreadable PNG data" : text
        }
    }
}

extension PNGCodec {
    /// A text chunk: `keyword` 1–79 Latin-1 characters (PNG's own, such as `Title`,
    /// `Source`, `Software`, or a private one), `text` any UTF-8 (iTXt when not ASCII).
    public struct Text: Sendable, Equatable {
        public var keyword: String
        public var text: String
        public init(_ keyword: String, _ text: String) { (self.keyword, self.text) = (keyword, text) }
    }

    /// Encodes 8- or 16-bit gray or RGB losslessly, with `texts` as text chunks. A 16-bit
    /// buffer with fewer significant bits (10- and 12-bit depth maps) is scaled to the full
    /// 16-bit range, as the PNG specification requires (left bit replication: 1023 becomes
    /// 65535), with an sBIT chunk giving the true depth; ``decodeSamples(_:maxPixels:keepingAlpha:)``
    /// shifts it back exactly. `photographic` lets libpng choose a filter per row (photos);
    /// otherwise every row uses the Up filter with run-length matching (depth maps and mattes).
    public static func encode(
        _ samples: ImageSamples, texts: [Text] = [], compressionLevel: Int = 6, photographic: Bool = false
    ) throws -> [UInt8] {
        guard (1...4).contains(samples.channels) else {
            throw PNGError(message: "cannot write \(samples.channels)-channel images (gray, gray+alpha, RGB or RGBA only)")
        }
        for t in texts {
            guard (1...79).contains(t.keyword.utf8.count), t.keyword.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }),
                !t.text.utf8.contains(0)
            else {
                throw PNGError(message: "'\(t.keyword)' cannot be a PNG text keyword (1-79 printable ASCII characters)")
            }
        }
        var out = cpng_buffer()
        var error = cpng_error()
        let ok = withTextChunks(texts) { chunks -> Int32 in
            switch samples {
            case .eight(let p):
                return p.components.withUnsafeBytes {
                    cpng_encode(
                        $0.baseAddress, UInt32(p.width), UInt32(p.height), Int32(p.channels), 8, 8, chunks.baseAddress, Int32(chunks.count),
                        Int32(compressionLevel), photographic ? 1 : 0, &out, &error)
                }
            case .sixteen(let p, let bits):
                let full = bits < 16 ? p.components.map { SampleScale.toSixteen($0, bits: bits) } : p.components
                return full.withUnsafeBytes {
                    cpng_encode(
                        $0.baseAddress, UInt32(p.width), UInt32(p.height), Int32(p.channels), 16, Int32(bits), chunks.baseAddress,
                        Int32(chunks.count), Int32(compressionLevel), photographic ? 1 : 0, &out, &error)
                }
            }
        }
        guard ok != 0, let data = out.data else { throw PNGError(message: message(error)) }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: out.size))
    }

    /// The texts as C strings for the duration of `body`.
    private static func withTextChunks<R>(_ texts: [Text], _ body: (UnsafeBufferPointer<cpng_text>) -> R) -> R {
        let strings = texts.map { (strdup($0.keyword)!, strdup($0.text)!) }
        defer { for (k, t) in strings { free(k); free(t) } }
        let chunks = strings.map { cpng_text(keyword: $0.0, text: $0.1) }
        return chunks.withUnsafeBufferPointer(body)
    }

    /// Decodes keeping sample values exactly (no gamma or colour conversion): gray or RGB,
    /// 8- or 16-bit; a palette becomes RGB, alpha is dropped (`hadAlpha` says so) unless
    /// `keepingAlpha` (then gray+alpha or RGBA, a tRNS chunk as alpha). A 16-bit
    /// PNG with an sBIT below 16 gives its samples at that depth: shifted back from the full
    /// range, or as they are when every sample already fits in those bits (files written
    /// unscaled, by tools that skip the scaling and by camlib before it scaled).
    public static func decodeSamples(_ png: [UInt8], maxPixels: Int = DecodeLimits.maximumPixels, keepingAlpha: Bool = false) throws
        -> (samples: ImageSamples, hadAlpha: Bool)
    {
        var decoded = cpng_decoded()
        var error = cpng_error()
        let ok = png.withUnsafeBytes { cpng_decode($0.baseAddress, $0.count, maxPixels, keepingAlpha ? 1 : 0, &decoded, &error) }
        guard ok != 0, let pixels = decoded.pixels else { throw PNGError(message: message(error)) }
        defer { free(pixels) }
        let w = Int(decoded.width), h = Int(decoded.height), ch = Int(decoded.channels)
        let count = w * h * ch
        if decoded.bit_depth == 16 {
            var samples = pixels.withMemoryRebound(to: UInt16.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
            let bits = Int(decoded.significant_bits)
            if bits < 16, samples.contains(where: { $0 >> bits != 0 }) {
                let shift = UInt16(16 - bits)
                for i in samples.indices { samples[i] >>= shift }
            }
            return (.sixteen(PixelBuffer(width: w, height: h, channels: ch, components: samples), significantBits: bits),
                    decoded.had_alpha != 0)
        }
        let samples = Array(UnsafeBufferPointer(start: pixels, count: count))
        return (.eight(PixelBuffer(width: w, height: h, channels: ch, components: samples)), decoded.had_alpha != 0)
    }

    static func message(_ error: cpng_error) -> String {
        var m = error.message
        return withUnsafeBytes(of: &m) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "unreadable PNG data" : text
        }
    }
}
