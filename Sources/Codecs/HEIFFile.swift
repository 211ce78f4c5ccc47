internal import CHeif
import Containers
import Imaging
import Glibc

/// A HEIF or AVIF file opened with libheif: the primary image, its displayed size and
/// orientation, its metadata blocks and its thumbnail.
///
/// ```swift
/// let file = try HEIFFile(path: "IMG_3582.HEIC")
/// let image = try file.primaryImage()
/// (image.width, image.height)   // (4284, 5712): as displayed, after irot/imir/clap
/// ```
public final class HEIFFile {
    // heif_context_alloc → heif_context_free (deinit).
    let context: OpaquePointer
    /// The file's path; "(memory)" for a file read from bytes.
    public let path: String
    /// HEVC-coded (HEIC), as opposed to AVIF and other codecs.
    let isHEVC: Bool
    /// The bytes of a file read from memory: libheif reads them in place
    /// (heif_context_read_from_memory_without_copy), so they live until deinit.
    private let memory: UnsafeMutableRawBufferPointer?

    /// Reads the file's structure (not its pixels).
    public init(path: String) throws {
        HEIFLibrary.ensureInitialized()
        guard let ctx = heif_context_alloc() else {
            throw HEIFError(code: -1, subcode: 0, message: "libheif could not allocate a context", context: path)
        }
        self.context = ctx
        self.path = path
        self.memory = nil
        self.isHEVC = Self.mimeType(ofFileAt: path).hasPrefix("image/heic")
        Self.setLimits(ctx)
        try check(heif_context_read_from_file(ctx, path, nil), "reading the file")
    }

    /// Reads a whole file held in memory (its structure, not its pixels), from a copy of
    /// its own.
    public convenience init(bytes: [UInt8]) throws {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        try self.init(reading: UnsafeRawBufferPointer(rebasing: memory[0..<bytes.count]), owning: memory)
    }

    /// Reads `bytes` in place; `owning`, when given, is freed with the file (a copy made
    /// for it); otherwise the caller keeps the bytes alive (``reading(_:_:)``).
    private init(reading bytes: UnsafeRawBufferPointer, owning: UnsafeMutableRawBufferPointer?) throws {
        HEIFLibrary.ensureInitialized()
        guard let ctx = heif_context_alloc() else {
            owning?.deallocate()
            throw HEIFError(code: -1, subcode: 0, message: "libheif could not allocate a context", context: "(memory)")
        }
        self.context = ctx
        self.path = "(memory)"
        self.memory = owning
        self.isHEVC = Self.mimeType(of: Array(bytes.prefix(64))).hasPrefix("image/heic")
        Self.setLimits(ctx)
        // (Once every property is set, a throw runs deinit, which frees the context and
        // the copy.)
        try check(heif_context_read_from_memory_without_copy(ctx, bytes.baseAddress, bytes.count, nil), "reading the file")
    }

    /// Runs `body` with the file held in `bytes`, read in place: no copy of the bytes
    /// (import holds each still once, for its hash, its parsers and its copy). The file and
    /// every image of it live only for `body`; one that escapes it stops the process
    /// rather than read freed memory.
    public static func reading<T>(_ bytes: [UInt8], _ body: (HEIFFile) throws -> T) throws -> T {
        try bytes.withUnsafeBytes { raw in
            var file: HEIFFile? = try HEIFFile(reading: raw, owning: nil)
            defer {
                precondition(isKnownUniquelyReferenced(&file), "a HEIFFile read in place outlived its bytes")
                file = nil
            }
            return try body(file!)
        }
    }

    deinit {
        heif_context_free(context)
        memory?.deallocate()
    }

    /// Grid images (iPhone HEICs are 512x512 tiles) decode their tiles on two threads:
    /// while import workers share the cores this changes little, but it halves the wait
    /// when one big HEIC is the last file left. libheif's largest block (512 MB by default)
    /// is raised to hold a picture of camlib's largest size (``DecodeLimits``, which refuses
    /// larger ones from their headers) decoded whole: 600 MB as 8-bit RGB, 1.6 GB as 16-bit
    /// RGBA. The limits set are the context's own.
    private static func setLimits(_ ctx: OpaquePointer) {
        heif_context_set_max_decoding_threads(ctx, 2)
        if let limits = heif_context_get_security_limits(ctx) {
            let largest = UInt64(DecodeLimits.maximumPixels) * 4 * 2
            if limits.pointee.max_memory_block_size != 0 { limits.pointee.max_memory_block_size = max(limits.pointee.max_memory_block_size, largest) }
        }
    }

    /// libheif's reading of the file's brands: "image/heic", "image/avif", …
    static func mimeType(ofFileAt path: String) -> String {
        guard let f = fopen(path, "rb") else { return "" }
        defer { fclose(f) }
        var header = [UInt8](repeating: 0, count: 64)
        let n = fread(&header, 1, header.count, f)
        return mimeType(of: Array(header.prefix(n)))
    }

    static func mimeType(of header: [UInt8]) -> String {
        guard !header.isEmpty, let mime = heif_get_file_mime_type(header, Int32(header.count)) else { return "" }
        return String(cString: mime)
    }

    func check(_ error: heif_error, _ what: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw HEIFError(
            code: Int(error.code.rawValue), subcode: Int(error.subcode.rawValue),
            message: error.message.map { String(cString: $0) } ?? "unknown error", context: what)
    }

    /// The primary image item.
    public func primaryImage() throws -> HEIFImage {
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handle), "finding the primary image")
        guard let handle else { throw HEIFError(code: -1, subcode: 0, message: "no primary image", context: "finding the primary image") }
        return HEIFImage(handle: handle, file: self)
    }
}

/// One image item of a ``HEIFFile``.
public final class HEIFImage {
    // From heif_context_get_primary_image_handle or heif_image_handle_get_thumbnail;
    // released with heif_image_handle_release (deinit). Keeps its file (and so the
    // heif_context the handle points into) alive.
    let handle: OpaquePointer
    let file: HEIFFile

    init(handle: OpaquePointer, file: HEIFFile) {
        self.handle = handle
        self.file = file
    }

    deinit { heif_image_handle_release(handle) }

    public var itemID: UInt32 { heif_image_handle_get_item_id(handle) }
    /// Displayed width, after the item's transformations (irot, imir, clap).
    public var width: Int { Int(heif_image_handle_get_width(handle)) }
    public var height: Int { Int(heif_image_handle_get_height(handle)) }

    /// The item's irot/imir folded into one EXIF orientation (clap only crops).
    ///
    /// HEIF files carry an EXIF Orientation tag too, but readers must ignore it: the item
    /// properties are what a conforming decoder applies.
    public var orientation: EXIFOrientation {
        let ctx = file.context
        let id = itemID
        let count = heif_item_get_transformation_properties(ctx, id, nil, 0)
        guard count > 0 else { return .up }
        var ids = [heif_property_id](repeating: 0, count: Int(count))
        let n = heif_item_get_transformation_properties(ctx, id, &ids, count)
        var result = EXIFOrientation.up
        for pid in ids.prefix(Int(n)) {
            switch heif_item_get_property_type(ctx, id, pid) {
            case heif_item_property_type_transform_rotation:
                let ccw = heif_item_get_property_transform_rotation_ccw(ctx, id, pid)
                if ccw >= 0 { result = result.then(.heifRotation(degreesCCW: Int(ccw))) }
            case heif_item_property_type_transform_mirror:
                let dir = heif_item_get_property_transform_mirror(ctx, id, pid)
                if dir == heif_transform_mirror_direction_horizontal {
                    result = result.then(.heifMirror(horizontal: true))
                } else if dir == heif_transform_mirror_direction_vertical {
                    result = result.then(.heifMirror(horizontal: false))
                }
            default: break
            }
        }
        return result
    }

    /// Metadata blocks of a type: "Exif" or "mime" (XMP).
    public func metadataBlocks(type: String) -> [[UInt8]] {
        let n = heif_image_handle_get_number_of_metadata_blocks(handle, type)
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, n)
        return ids.prefix(Int(got)).compactMap { id in
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size < 64 << 20 else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            let err = bytes.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            return err.code == heif_error_Ok ? bytes : nil
        }
    }

    /// The TIFF structure of the first Exif block. A HEIF Exif item starts with a 4-byte
    /// big-endian offset to the TIFF header (usually past an "Exif\0\0" prefix).
    public func exifTIFF() -> ArraySlice<UInt8>? {
        guard let block = metadataBlocks(type: "Exif").first, block.count > 4 else { return nil }
        let skip = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard skip >= 0, 4 + skip < block.count else { return nil }
        return block[(4 + skip)...]
    }

    /// The largest thumbnail item, if any.
    public func thumbnail() -> HEIFImage? {
        let n = heif_image_handle_get_number_of_thumbnails(handle)
        guard n > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, n)
        var best: HEIFImage?
        for id in ids.prefix(Int(got)) {
            var thumb: OpaquePointer?
            let err = heif_image_handle_get_thumbnail(handle, id, &thumb)
            guard err.code == heif_error_Ok, let thumb else { continue }
            let image = HEIFImage(handle: thumb, file: file)
            if best == nil || image.width * image.height > best!.width * best!.height { best = image }
        }
        return best
    }

    /// Decodes with libheif (which applies irot/imir/clap unless `asStored`) into
    /// `colorspace`/`chroma`, or the codec's own when both are undefined; more than 8 bits
    /// per sample are reduced to 8 unless `keepHighBitDepth`. The caller releases the image with heif_image_release.
    func decode(colorspace: heif_colorspace, chroma: heif_chroma, keepHighBitDepth: Bool = false, asStored: Bool = false) throws -> OpaquePointer {
        try checkDecodeLimit()
        // heif_decoding_options_alloc → heif_decoding_options_free.
        guard let options = heif_decoding_options_alloc() else {
            throw HEIFError(code: -1, subcode: 0, message: "could not allocate decoding options", context: "decoding")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = keepHighBitDepth ? 0 : 1
        options.pointee.ignore_transformations = asStored ? 1 : 0
        let decoder = file.isHEVC ? HEIFLibrary.preferredHEVCDecoder : ""
        var image: OpaquePointer?
        var error = decoder.withCString { id in
            options.pointee.decoder_id = decoder.isEmpty ? nil : id  // read only during the call
            return heif_decode_image(handle, &image, colorspace, chroma, options)
        }
        if error.code == heif_error_Unsupported_feature, !decoder.isEmpty {
            // libheif's FFmpeg plugin has no conversion for some of what libde265 decodes
            // (10- and 12-bit monochrome: "Pixel format not implemented"): its default then.
            options.pointee.decoder_id = nil
            error = heif_decode_image(handle, &image, colorspace, chroma, options)
        }
        try file.check(error, "decoding image item \(itemID)")
        guard let image else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: "decoding image item \(itemID)") }
        return image
    }

    /// Refuses a picture larger than ``DecodeLimits/maximumPixels`` before libheif
    /// allocates it.
    func checkDecodeLimit() throws {
        let stored = (Int(heif_image_handle_get_ispe_width(handle)), Int(heif_image_handle_get_ispe_height(handle)))
        if let refusal = DecodeLimits.refusal(width: max(stored.0, width), height: max(stored.1, height)) {
            throw HEIFError(code: -1, subcode: 0, message: refusal, context: "decoding image item \(itemID)")
        }
    }

    /// Decodes to 8-bit RGB in display orientation.
    public func decodeRGB() throws -> PixelBuffer<UInt8> {
        let image = try decode(colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB)
        defer { heif_image_release(image) }
        return try Self.rgbPixels(image, context: "decoding image item \(itemID)")
    }
}

/// libheif's process-wide setup: heif_init loads the decoder plugins (libde265, FFmpeg,
/// dav1d) that Debian ships as separate packages. Reference-counted by libheif; camlib
/// keeps one reference for the life of the process.
enum HEIFLibrary {
    private static let initialized: Bool = {
        _ = heif_init(nil)
        return true
    }()

    static func ensureInitialized() { _ = initialized }

    /// FFmpeg's HEVC decoder when its libheif plugin is installed (about 1.5x faster than
    /// libde265 on iPhone HEICs); empty to let libheif choose.
    static let preferredHEVCDecoder: String = {
        ensureInitialized()
        var descriptors = [OpaquePointer?](repeating: nil, count: 16)  // owned by libheif
        let n = heif_get_decoder_descriptors(heif_compression_HEVC, &descriptors, Int32(descriptors.count))
        let ids = descriptors.prefix(Int(n)).compactMap { d in d.flatMap { heif_decoder_descriptor_get_id_name($0) }.map { String(cString: $0) } }
        return ids.contains("ffmpeg") ? "ffmpeg" : ""
    }()
}
