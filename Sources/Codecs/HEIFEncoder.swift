internal import CHeif
import Containers
import Foundation
import Synchronization
import Imaging

/// HEVC still encoding through libheif (its x265 plugin).
public enum HEIFEncoder {
    /// Encodes one-channel samples (8-bit, or up to 12 significant bits) as a monochrome
    /// HEVC image and returns a whole HEIF file holding it. `lossless` keeps every sample
    /// exactly; otherwise `quality` (0–100) applies. `preset`: x265's speed preset, as a
    /// render's picture is coded; libheif's own (slower, smaller) when nil.
    public static func encodeMonochrome(_ samples: ImageSamples, lossless: Bool, quality: Int = 90, preset: String? = nil) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        guard samples.channels == 1 else {
            throw HEIFError(code: -1, subcode: 0, message: "an auxiliary image must have one channel, this one has \(samples.channels)", context: "encoding")
        }
        let bits = samples.bitDepth
        guard bits == 8 || (9...12).contains(bits) else {
            throw HEIFError(
                code: -1, subcode: 0,
                message: "the image has \(bits) significant bits and HEVC codes at most 12 (Main 12); write it with 8, 10 or 12 (a 16-bit PNG says its depth in an sBIT chunk, as `camlib aux extract` writes them)",
                context: "encoding")
        }
        return try withNewImage(
            width: samples.width, height: samples.height, colorspace: heif_colorspace_monochrome, chroma: heif_chroma_monochrome,
            channel: heif_channel_Y, bits: bits
        ) { ctx, image, plane, stride in
            switch samples {
            case .eight(let p):
                p.components.withUnsafeBufferPointer { src in
                    for y in 0..<p.height { (plane + y * stride).update(from: src.baseAddress! + y * p.width, count: p.width) }
                }
            case .sixteen(let p, _):
                // libheif holds >8-bit samples as little-endian 16-bit words.
                p.components.withUnsafeBufferPointer { src in
                    for y in 0..<p.height {
                        let row = UnsafeMutableRawPointer(plane + y * stride)
                        for x in 0..<p.width { row.storeBytes(of: src[y * p.width + x].littleEndian, toByteOffset: x * 2, as: UInt16.self) }
                    }
                }
            }
            let encoder = try hevcEncoder(ctx)
            defer { heif_encoder_release(encoder) }
            if let preset { try setSpeed(of: encoder, preset: preset) }
            if lossless {
                try check(heif_encoder_set_lossless(encoder, 1), "asking for lossless coding")
            } else {
                try check(heif_encoder_set_lossy_quality(encoder, Int32(max(0, min(100, quality)))), "setting the quality")
            }
            try encode(ctx, image, encoder).map { heif_image_handle_release($0) }
            return try write(ctx)
        }
    }

    /// A new libheif context and an image in it with one plane of `channel`, for `body`
    /// to fill (`plane`, `stride` bytes per row) and encode; both freed afterwards.
    static func withNewImage<T>(
        width: Int, height: Int, colorspace: heif_colorspace, chroma: heif_chroma, channel: heif_channel, bits: Int,
        _ body: (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt8>, Int) throws -> T
    ) throws -> T {
        // heif_context_alloc → heif_context_free.
        guard let ctx = heif_context_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no context", context: "encoding") }
        defer { heif_context_free(ctx) }
        // heif_image_create → heif_image_release.
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), colorspace, chroma, &image), "creating the image")
        guard let image else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: "encoding") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, channel, Int32(width), Int32(height), Int32(bits)), "adding the plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, channel, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "no plane", context: "encoding")
        }
        return try body(ctx, image, plane, Int(stride))
    }

    /// Encodes `image` into `ctx` as its primary image, turned by `orientation` (irot/imir);
    /// returns the new handle, which the caller releases with heif_image_handle_release.
    /// `describingColour`: the colours are sRGB and say so in an nclx `colr` (sRGB primaries
    /// and transfer, the BT.601 matrix libheif converts RGB with, full range); libheif by
    /// default writes none (a workaround for old macOS), and a reader must then guess.
    static func encode(
        _ ctx: OpaquePointer, _ image: OpaquePointer, _ encoder: OpaquePointer, orientation: EXIFOrientation = .up,
        describingColour: Bool = false, as colour: HEIFColourDescription? = nil
    ) throws -> OpaquePointer? {
        // heif_encoding_options_alloc → heif_encoding_options_free.
        guard let options = heif_encoding_options_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no options", context: "encoding") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation.rawValue))
        // (libheif copies the profile.)
        let nclx = describingColour ? try description(of: colour) : nil
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        if let nclx {
            options.pointee.output_nclx_profile = nclx
            options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(ctx, image, encoder, options, &handle), "encoding")
        return handle
    }

    /// sRGB as an nclx profile: sRGB's primaries and transfer, the BT.601 matrix libheif
    /// converts RGB with, full range. heif_nclx_color_profile_alloc: the caller frees it
    /// with heif_nclx_color_profile_free.
    static func sRGBDescription() throws -> UnsafeMutablePointer<heif_color_profile_nclx> {
        try description(of: nil)
    }

    /// `colour` as an nclx profile (sRGB when nil), freed by the caller as above.
    static func description(of colour: HEIFColourDescription?) throws -> UnsafeMutablePointer<heif_color_profile_nclx> {
        guard let nclx = heif_nclx_color_profile_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no colour profile", context: "encoding") }
        guard let colour else {
            nclx.pointee.color_primaries = heif_color_primaries_ITU_R_BT_709_5
            nclx.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
            nclx.pointee.full_range_flag = 1
            return nclx
        }
        // The setters refuse code points H.273 does not define.
        for (what, error) in [
            ("primaries", heif_nclx_color_profile_set_color_primaries(nclx, UInt16(clamping: colour.primaries))),
            ("transfer", heif_nclx_color_profile_set_transfer_characteristics(nclx, UInt16(clamping: colour.transfer))),
            ("matrix", heif_nclx_color_profile_set_matrix_coefficients(nclx, UInt16(clamping: colour.matrix))),
        ] where error.code != heif_error_Ok {
            heif_nclx_color_profile_free(nclx)
            try check(error, "setting the colour description's \(what)")
        }
        nclx.pointee.full_range_flag = colour.fullRange ? 1 : 0
        return nclx
    }

    /// libheif's HEVC encoder (its x265 plugin); the caller releases it with
    /// heif_encoder_release.
    static func hevcEncoder(_ ctx: OpaquePointer) throws -> OpaquePointer {
        try encoder(ctx, for: .hevc)
    }

    /// What a HEIF file's images are coded with.
    public enum Compression: Sendable {
        /// HEIC (x265).
        case hevc
        /// AVIF (SVT-AV1).
        case av1
    }

    /// SVT-AV1 prints its settings to stderr unless told to keep to errors. Set once, before
    /// the first AV1 encoder: setenv while another thread reads the environment can crash.
    private static let quietSVTAV1: Void = { setenv("SVT_LOG", "1", 0) }()

    /// One AV1 encode at a time in a process: Debian's SVT-AV1 (1.4.1, through libheif)
    /// crashed in its encoder with two AVIF edits running at once (a NULL dereference in
    /// libSvtAv1Enc); x265 encodes run side by side without trouble.
    static let av1Encodes = Mutex(())

    /// libheif's encoder for `compression`; the caller releases it with heif_encoder_release.
    static func encoder(_ ctx: OpaquePointer, for compression: Compression) throws -> OpaquePointer {
        var encoder: OpaquePointer?
        switch compression {
        case .hevc:
            try check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder), "finding an HEVC encoder (is libheif-plugin-x265 installed?)")
        case .av1:
            _ = quietSVTAV1
            try check(heif_context_get_encoder_for_format(ctx, heif_compression_AV1, &encoder), "finding an AV1 encoder (is libheif-plugin-svtenc installed?)")
        }
        guard let encoder else { throw HEIFError(code: -1, subcode: 0, message: "no encoder for \(compression)", context: "encoding") }
        return encoder
    }

    /// x265's speed for a still. The preset: x265 is most of an edit's time, and
    /// "ultrafast" takes a fifth of libheif's default "slow"; camlib renders with it at a
    /// higher quality setting than libheif's default of 50. Then RD level 1 in place of
    /// the preset's 2: a picture coded whole as one intra frame has its block sizes chosen
    /// by their SA8D cost rather than by coding each candidate, which saves time for the
    /// same bytes and SSIM. And the preset's one transform split in intra blocks, which
    /// libheif raises to two: an eighth less of x265's time for 0.2-0.4% more bytes at the
    /// same SSIM (figures in docs/performance.md). Only settings that x265 keeps per
    /// encoder belong here: libheif and FFmpeg share one libx265 in a process, and a
    /// setting it shares between encoders (the smallest coding block, for one) made a
    /// still's bytes depend on the movies coded before it.
    static func setSpeed(of encoder: OpaquePointer, preset: String) throws {
        try check(heif_encoder_set_parameter_string(encoder, "preset", preset), "choosing the x265 preset")
        try check(heif_encoder_set_parameter_integer(encoder, "tu-intra-depth", 1), "choosing x265's transform depth")
        // libheif's x265 plugin hands parameters named "x265:…" to x265 as they are.
        try check(heif_encoder_set_parameter_string(encoder, "x265:rd", "1"), "choosing x265's RD level")
        for (name, value) in Cores.x265Threading {
            try check(heif_encoder_set_parameter_string(encoder, "x265:" + name, value), "choosing x265's threads")
        }
    }

    final class ByteSink {
        var bytes: [UInt8] = []
    }

    static func check(_ error: heif_error, _ what: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw HEIFError(
            code: Int(error.code.rawValue), subcode: Int(error.subcode.rawValue),
            message: error.message.map { String(cString: $0) } ?? "unknown error", context: what)
    }
}

extension HEIFEncoder {
    /// A photo to encode: 8-bit RGB pixels as stored (before `orientation`), and what the
    /// file carries beside them.
    public struct Still {
        public var pixels: PixelBuffer<UInt8>
        /// Written as irot/imir, so the file displays like its source.
        public var orientation: EXIFOrientation = .up
        /// The source's ICC profile, so colours mean what they meant.
        public var iccProfile: [UInt8]?
        /// The source's nclx colour description, written when there is no ICC profile;
        /// sRGB when both are nil.
        public var colour: HEIFColourDescription?
        /// A TIFF structure (Exif without its 4-byte offset prefix).
        public var exifTIFF: [UInt8]?
        public var xmp: [UInt8]?
        public var quality = 60
        /// x265's speed preset: ultrafast … placebo (HEVC only; SVT-AV1 runs at its fastest).
        public var preset = "ultrafast"
        /// HEIC or AVIF.
        public var compression = Compression.hevc
        /// Longest side of an embedded thumbnail item; nil for none.
        public var thumbnailSide: Int? = 320
        /// The most bytes the coded picture may take (a render: its original's coded
        /// picture); `quality` is lowered as far as needed. nil: `quality` alone decides.
        public var maximumCodedBytes: Int?

        public init(pixels: PixelBuffer<UInt8>) {
            self.pixels = pixels
        }
    }

    /// Encodes a photo as a HEIC (HEVC, 4:2:0) or an AVIF and returns the file's bytes.
    public static func encodeRGB(_ still: Still) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        if still.compression == .av1 { return try av1Encodes.withLock { _ in try encodeWithinBudget(still) } }
        return try encodeWithinBudget(still)
    }

    /// Rate control for one picture, as far as the budget asks: an encoder's bytes halve
    /// for every 6 steps of its quantiser (x265's CRF; libheif's quality is 100 − 2·CRF),
    /// so a trial encode of a sixteenth of the picture (a mosaic of 16 patches from all
    /// over it) at the asked quality predicts the whole picture's bytes, and the quality
    /// is lowered by 12·log2(predicted / budget) before the full encode. Should the
    /// picture still come out above its budget, it is encoded again (up to three times)
    /// with the quality the measured bytes call for.
    static func encodeWithinBudget(_ still: Still) throws -> [UInt8] {
        try fittingBudget(still, width: still.pixels.width, height: still.pixels.height, encode: encodeRGBNow) { settings in
            var trial = settings
            trial.pixels = samplePatches(still.pixels)
            return (try codedBytes(of: encodeRGBNow(trial)), trial.pixels.width * trial.pixels.height)
        }
    }

    /// The rate control of `encodeWithinBudget` for a picture of `width`×`height` that
    /// `encode` codes with the settings it is given, and `trial` codes in part: the trial's
    /// coded bytes and pixels, at the settings it is given (no thumbnail, no budget).
    static func fittingBudget(
        _ still: Still, width: Int, height: Int, encode: (Still) throws -> [UInt8], trial: (Still) throws -> (bytes: Int, pixels: Int)
    ) throws -> [UInt8] {
        guard let budget = still.maximumCodedBytes, budget > 0, width >= 256, height >= 256 else { return try encode(still) }
        // Aim a tenth under the budget: the prediction is an estimate.
        let aim = Double(budget) * 0.9
        var settings = still
        (settings.thumbnailSide, settings.maximumCodedBytes) = (nil, nil)
        let measured = try trial(settings)
        let scale = Double(width * height) / Double(measured.pixels)
        var fitted = still
        fitted.quality = quality(still.quality, bytes: Double(measured.bytes) * scale, aim: aim)
        var encoded = try encode(fitted)
        // Up to three corrections from the measured bytes (one is usually enough for x265;
        // SVT-AV1's bytes follow its quality less closely), each at least a step lower.
        for _ in 0..<3 {
            let bytes = try codedBytes(of: encoded)
            guard bytes > budget, fitted.quality > minimumQuality else { break }
            fitted.quality = min(fitted.quality - 1, quality(fitted.quality, bytes: Double(bytes), aim: aim))
            fitted.quality = max(minimumQuality, fitted.quality)
            encoded = try encode(fitted)
        }
        return encoded
    }

    /// Below this the picture falls apart; a render never goes lower.
    static let minimumQuality = 10

    /// The quality that brings `bytes` (coded at `quality`) down to `aim`.
    static func quality(_ quality: Int, bytes: Double, aim: Double) -> Int {
        guard bytes > aim else { return quality }
        let steps = Int((12 * log2(bytes / aim)).rounded(.up))
        return max(minimumQuality, quality - steps)
    }

    /// A quarter-by-quarter mosaic of the picture: 4x4 patches, each from the middle of
    /// its sixteenth, so the trial sees the sky, the subject and the ground alike.
    static func samplePatches<T>(_ p: PixelBuffer<T>) -> PixelBuffer<T> {
        let pw = max(16, p.width / 16) & ~1, ph = max(16, p.height / 16) & ~1
        var out = PixelBuffer<T>(width: pw * 4, height: ph * 4, channels: 3)
        for ty in 0..<4 {
            for tx in 0..<4 {
                let sx = (2 * tx + 1) * p.width / 8 - pw / 2, sy = (2 * ty + 1) * p.height / 8 - ph / 2
                for y in 0..<ph {
                    let src = ((sy + y) * p.width + sx) * 3, dst = ((ty * ph + y) * pw * 4 + tx * pw) * 3
                    out.components.replaceSubrange(dst..<(dst + pw * 3), with: p.components[src..<(src + pw * 3)])
                }
            }
        }
        return out
    }

    /// The bytes of a HEIF file's primary picture: its item's data and its grid tiles'.
    public static func codedBytes(of file: [UInt8]) throws -> Int {
        let meta = try HEIFMetaBox(file: file)
        let primary = meta.primaryItemID
        let items = [primary] + meta.references.filter { $0.type == "dimg" && $0.from == primary }.flatMap(\.to)
        return items.compactMap { meta.location(of: $0) }.flatMap(\.extents).reduce(0) { $0 + Int($1.length) }
    }

    private static func encodeRGBNow(_ still: Still) throws -> [UInt8] {
        let p = still.pixels
        guard p.channels == 3, p.width > 0, p.height > 0 else {
            throw HEIFError(code: -1, subcode: 0, message: "expected RGB pixels", context: "encoding")
        }
        return try withNewImage(
            width: p.width, height: p.height, colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB,
            channel: heif_channel_interleaved, bits: 8
        ) { ctx, image, plane, stride in
            p.components.withUnsafeBufferPointer { src in
                for y in 0..<p.height { (plane + y * stride).update(from: src.baseAddress! + y * p.width * 3, count: p.width * 3) }
            }
            if let icc = still.iccProfile, !icc.isEmpty {
                try icc.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count), "setting the colour profile") }
            }
            return try encodeFilled(ctx, image, still, width: p.width, height: p.height)
        }
    }

    /// Codes `image` (its pixels and colour profile set) into `ctx` as `still` says, with
    /// its thumbnail, Exif and XMP, and returns the file's bytes.
    static func encodeFilled(_ ctx: OpaquePointer, _ image: OpaquePointer, _ still: Still, width: Int, height: Int) throws -> [UInt8] {
        let encoder = try encoder(ctx, for: still.compression)
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(max(0, min(100, still.quality)))), "setting the quality")
        if still.compression == .hevc { try setSpeed(of: encoder, preset: still.preset) }
        let described = still.iccProfile?.isEmpty ?? true  // an ICC profile says it instead
        guard let handle = try encode(ctx, image, encoder, orientation: still.orientation, describingColour: described, as: still.colour) else {
            throw HEIFError(code: -1, subcode: 0, message: "no image handle", context: "encoding")
        }
        defer { heif_image_handle_release(handle) }
        // A thumbnail only when it is smaller than the image (libheif refuses otherwise).
        if let side = still.thumbnailSide, side < max(width, height) {
            guard let options = heif_encoding_options_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no options", context: "encoding") }
            defer { heif_encoding_options_free(options) }
            options.pointee.image_orientation = heif_orientation(rawValue: UInt32(still.orientation.rawValue))
            var thumb: OpaquePointer?
            try check(heif_context_encode_thumbnail(ctx, image, handle, encoder, options, Int32(side), &thumb), "encoding the thumbnail")
            if let thumb { heif_image_handle_release(thumb) }
        }
        if let exif = still.exifTIFF, !exif.isEmpty {
            try exif.withUnsafeBytes { try check(heif_context_add_exif_metadata(ctx, handle, $0.baseAddress, Int32($0.count)), "adding Exif") }
        }
        if let xmp = still.xmp, !xmp.isEmpty {
            try xmp.withUnsafeBytes { try check(heif_context_add_XMP_metadata(ctx, handle, $0.baseAddress, Int32($0.count)), "adding XMP") }
        }
        return try markingTransformsEssential(write(ctx))
    }

    /// The file with every irot, imir, clap and colr association marked essential, as MIAF
    /// asks (libheif writes them optional, so a reader that skips what it does not know
    /// could show the picture unturned).
    static func markingTransformsEssential(_ file: [UInt8]) throws -> [UInt8] {
        var meta = try HEIFMetaBox(file: file)
        meta.markEssential(["irot", "imir", "clap", "colr"])
        return try HEIFAuxiliaryWriter.assemble(file, meta: meta, appending: [])
    }

    static func write(_ ctx: OpaquePointer) throws -> [UInt8] {
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
}

extension HEIFImage {
    /// The ICC profile the image carries, if any.
    public var iccProfile: [UInt8]? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size < 16 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let err = bytes.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return err.code == heif_error_Ok ? bytes : nil
    }
}
