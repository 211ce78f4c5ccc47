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

    static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "unreadable PNG data" : text
        }
    }
}
