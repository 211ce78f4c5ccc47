internal import CHeif
import Foundation
import Imaging

/// HEVC still encoding through libheif (its x265 plugin).
public enum HEIFEncoder {
    /// Encodes one-channel samples (8-bit, or up to 12 significant bits) as a monochrome
    /// HEVC image and returns a whole HEIF file holding it. `lossless` keeps every sample
    /// exactly; otherwise `quality` (0–100) applies.
    public static func encodeMonochrome(_ samples: ImageSamples, lossless: Bool, quality: Int = 90) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        guard samples.channels == 1 else {
            throw HEIFError(code: -1, subcode: 0, message: "an auxiliary image must have one channel, this one has \(samples.channels)", context: "encoding")
        }
        let bits = samples.bitDepth
        guard bits == 8 || (9...12).contains(bits) else {
            throw HEIFError(code: -1, subcode: 0, message: "\(bits)-bit samples cannot be HEVC-coded (8 to 12 bits)", context: "encoding")
        }
        // heif_context_alloc → heif_context_free.
        guard let ctx = heif_context_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no context", context: "encoding") }
        defer { heif_context_free(ctx) }
        // heif_image_create → heif_image_release.
        var image: OpaquePointer?
        try check(heif_image_create(Int32(samples.width), Int32(samples.height), heif_colorspace_monochrome, heif_chroma_monochrome, &image), "creating the image")
        guard let image else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: "encoding") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_Y, Int32(samples.width), Int32(samples.height), Int32(bits)), "adding the plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_Y, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "no plane", context: "encoding")
        }
        switch samples {
        case .eight(let p):
            p.components.withUnsafeBufferPointer { src in
                for y in 0..<p.height { (plane + y * Int(stride)).update(from: src.baseAddress! + y * p.width, count: p.width) }
            }
        case .sixteen(let p, _):
            // libheif holds >8-bit samples as little-endian 16-bit words.
            p.components.withUnsafeBufferPointer { src in
                for y in 0..<p.height {
                    let row = UnsafeMutableRawPointer(plane + y * Int(stride))
                    for x in 0..<p.width { row.storeBytes(of: src[y * p.width + x].littleEndian, toByteOffset: x * 2, as: UInt16.self) }
                }
            }
        }
        // heif_context_get_encoder_for_format → heif_encoder_release.
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder), "finding an HEVC encoder (is libheif-plugin-x265 installed?)")
        guard let encoder else { throw HEIFError(code: -1, subcode: 0, message: "no HEVC encoder", context: "encoding") }
        defer { heif_encoder_release(encoder) }
        if lossless {
            try check(heif_encoder_set_lossless(encoder, 1), "asking for lossless coding")
        } else {
            try check(heif_encoder_set_lossy_quality(encoder, Int32(max(0, min(100, quality)))), "setting the quality")
        }
        // heif_encoding_options_alloc → heif_encoding_options_free.
        guard let options = heif_encoding_options_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no options", context: "encoding") }
        defer { heif_encoding_options_free(options) }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(ctx, image, encoder, options, &handle), "encoding")
        if let handle { heif_image_handle_release(handle) }

        let sink = ByteSink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, userdata in
            let sink = Unmanaged<ByteSink>.fromOpaque(userdata!).takeUnretainedValue()
            if let data { sink.bytes += UnsafeRawBufferPointer(start: data, count: size) }
            // libheif wants a message even for success; a static string lives forever.
            let ok: StaticString = "Success"
            return heif_error(
                code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                message: UnsafeRawPointer(ok.utf8Start).assumingMemoryBound(to: CChar.self))
        }
        let error = withExtendedLifetime(sink) {
            heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque())
        }
        try check(error, "writing")
        return sink.bytes
    }

    private final class ByteSink {
        var bytes: [UInt8] = []
    }

    static func check(_ error: heif_error, _ what: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw HEIFError(
            code: Int(error.code.rawValue), subcode: Int(error.subcode.rawValue),
            message: error.message.map { String(cString: $0) } ?? "unknown error", context: what)
    }
}
