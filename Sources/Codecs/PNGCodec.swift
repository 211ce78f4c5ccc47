internal import CPNG
import Imaging

/// A failure reported by libpng, with its message.
public struct PNGError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "PNG: \(message)" }
}

/// PNG decoding through libpng's simplified API (it handles palettes, 16-bit, gamma,
/// interlacing and transparency).
public enum PNGCodec {
    /// Decodes to 8-bit RGB, compositing any transparency onto white.
    public static func decodeRGB(_ png: [UInt8]) throws -> PixelBuffer<UInt8> {
        var image = png_image()
        image.version = CPNG_IMAGE_VERSION()
        let ok = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError(message: message(image)) }
        // From here until png_image_finish_read, png_image_free releases libpng's state.
        image.format = CPNG_FORMAT_RGB()
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w * h <= 1 << 28 else {
            png_image_free(&image)
            throw PNGError(message: "image size \(w)x\(h) is not supported")
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
        image.version = CPNG_IMAGE_VERSION()
        let ok = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError(message: message(image)) }
        // Alpha in the file (an alpha channel or a tRNS chunk): PNG_FORMAT_FLAG_ALPHA.
        guard image.format & 0x01 != 0 else {
            png_image_free(&image)
            return (try decodeRGB(png), nil)
        }
        image.format = CPNG_FORMAT_RGB() | 0x01
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w * h <= 1 << 28 else {
            png_image_free(&image)
            throw PNGError(message: "image size \(w)x\(h) is not supported")
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
    /// Encodes 8- or 16-bit gray or RGB losslessly; a 16-bit buffer with fewer
    /// significant bits gets an sBIT chunk saying so, its samples written as they are.
    /// `photographic` lets libpng choose a filter per row (photos); otherwise every row
    /// uses the Up filter with run-length matching (depth maps and mattes).
    public static func encode(_ samples: ImageSamples, compressionLevel: Int = 6, photographic: Bool = false) throws -> [UInt8] {
        guard (1...4).contains(samples.channels) else {
            throw PNGError(message: "cannot write \(samples.channels)-channel images (gray, gray+alpha, RGB or RGBA only)")
        }
        var out = cpng_buffer()
        var error = cpng_error()
        let ok: Int32
        switch samples {
        case .eight(let p):
            ok = p.components.withUnsafeBytes {
                cpng_encode(
                    $0.baseAddress, UInt32(p.width), UInt32(p.height), Int32(p.channels), 8, 8, Int32(compressionLevel), photographic ? 1 : 0,
                    &out, &error)
            }
        case .sixteen(let p, let bits):
            ok = p.components.withUnsafeBytes {
                cpng_encode(
                    $0.baseAddress, UInt32(p.width), UInt32(p.height), Int32(p.channels), 16, Int32(bits), Int32(compressionLevel),
                    photographic ? 1 : 0, &out, &error)
            }
        }
        guard ok != 0, let data = out.data else { throw PNGError(message: message(error)) }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: out.size))
    }

    /// Decodes keeping sample values exactly (no gamma or colour conversion): gray or RGB,
    /// 8- or 16-bit; a palette becomes RGB, alpha is dropped (`hadAlpha` says so).
    public static func decodeSamples(_ png: [UInt8], maxPixels: Int = 1 << 28) throws -> (samples: ImageSamples, hadAlpha: Bool) {
        var decoded = cpng_decoded()
        var error = cpng_error()
        let ok = png.withUnsafeBytes { cpng_decode($0.baseAddress, $0.count, maxPixels, &decoded, &error) }
        guard ok != 0, let pixels = decoded.pixels else { throw PNGError(message: message(error)) }
        defer { free(pixels) }
        let w = Int(decoded.width), h = Int(decoded.height), ch = Int(decoded.channels)
        let count = w * h * ch
        if decoded.bit_depth == 16 {
            let samples = pixels.withMemoryRebound(to: UInt16.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
            return (.sixteen(PixelBuffer(width: w, height: h, channels: ch, components: samples), significantBits: Int(decoded.significant_bits)),
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
