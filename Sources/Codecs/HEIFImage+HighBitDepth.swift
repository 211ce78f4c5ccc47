internal import CHeif
import Imaging

/// How a HEIF picture's colours are coded when it says so with an nclx `colr` box rather
/// than an ICC profile (ITU-T H.273 code points): a render writes the same.
public struct HEIFColourDescription: Sendable, Equatable {
    public var primaries: Int, transfer: Int, matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        (self.primaries, self.transfer, self.matrix, self.fullRange) = (primaries, transfer, matrix, fullRange)
    }
}

extension HEIFImage {
    /// Bits per luma sample as the picture is coded: 8, or 10 and 12 for HDR and
    /// high-precision photos.
    public var lumaBitDepth: Int { Int(heif_image_handle_get_luma_bits_per_pixel(handle)) }

    /// The nclx colour description of the item's `colr` box, if it has one.
    public var colourDescription: HEIFColourDescription? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        // heif_image_handle_get_nclx_color_profile → heif_nclx_color_profile_free.
        defer { heif_nclx_color_profile_free(nclx) }
        return HEIFColourDescription(
            primaries: Int(nclx.pointee.color_primaries.rawValue), transfer: Int(nclx.pointee.transfer_characteristics.rawValue),
            matrix: Int(nclx.pointee.matrix_coefficients.rawValue), fullRange: nclx.pointee.full_range_flag != 0)
    }

    /// Decodes to 16-bit RGB, each coded sample at the full 16-bit range (a 10-bit 1023 is
    /// 65535), in display orientation or, with `asStored`, as stored. An 8-bit picture
    /// comes out with its bytes repeated.
    public func decodeRGB16(asStored: Bool = false) throws -> PixelBuffer<UInt16> {
        let image = try decode(colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RRGGBB_LE, keepHighBitDepth: true, asStored: asStored)
        // decode → heif_image_release.
        defer { heif_image_release(image) }
        return try Self.rgb16Pixels(image, context: "decoding image item \(itemID)")
    }

    /// An interleaved RRGGBB heif_image's pixels at the full 16-bit range (the caller
    /// keeps and releases the image).
    static func rgb16Pixels(_ image: OpaquePointer, context: String) throws -> PixelBuffer<UInt16> {
        let w = Int(heif_image_get_width(image, heif_channel_interleaved)), h = Int(heif_image_get_height(image, heif_channel_interleaved))
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, (8...16).contains(bits), let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "decoded image has no 16-bit RGB plane", context: context)
        }
        // Each of the 2^bits levels at 16 bits, looked up (masked: a sample never exceeds
        // its bits, and a damaged one must not read past the table).
        let full = (0..<(1 << bits)).map { SampleScale.toSixteen(UInt16($0), bits: bits) }
        let mask = UInt16((1 << bits) - 1)
        var out = PixelBuffer<UInt16>(width: w, height: h, channels: 3)
        out.components.withUnsafeMutableBufferPointer { dst in
            full.withUnsafeBufferPointer { full in
                for y in 0..<h {
                    let row = UnsafeRawPointer(plane + y * Int(stride))
                    for i in 0..<(w * 3) {
                        dst[y * w * 3 + i] = full[Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)) & mask)]
                    }
                }
            }
        }
        return out
    }
}

extension HEIFEncoder {
    /// Encodes a photo from 16-bit RGB pixels (as stored, the full 16-bit range) at `bits`
    /// per sample (10 or 12: HEVC Main 10/12, or AV1's 10-bit profile), with what `still`
    /// says beside its 8-bit `pixels` (which are not read): orientation, colour, metadata,
    /// quality and budget.
    public static func encodeRGB(_ still: Still, sixteenBit pixels: PixelBuffer<UInt16>, bits: Int) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        guard (9...12).contains(bits) else {
            throw HEIFError(code: -1, subcode: 0, message: "a high bit depth photo is coded with 10 or 12 bits, not \(bits)", context: "encoding")
        }
        let encode = { (settings: Still) in
            try fittingBudget(settings, width: pixels.width, height: pixels.height, encode: { try encodeNow($0, pixels, bits: bits) }) { trial in
                let patches = samplePatches(pixels)
                return (try codedBytes(of: encodeNow(trial, patches, bits: bits)), patches.width * patches.height)
            }
        }
        if still.compression == .av1 { return try av1Encodes.withLock { _ in try encode(still) } }
        return try encode(still)
    }

    /// An interleaved RRGGBB plane (`stride` bytes a row) filled with 16-bit `pixels`,
    /// each sample at its level (`levels`: ``SampleScale/levelsFromSixteen(bits:)``).
    /// libheif holds samples deeper than 8 bits as little-endian 16-bit words, at their depth.
    static func fill(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, with pixels: PixelBuffer<UInt16>, levels: [UInt16]) {
        precondition(levels.count == 65536, "a level for every 16-bit value")
        let w = pixels.width
        pixels.components.withUnsafeBufferPointer { src in
            levels.withUnsafeBufferPointer { level in
                for y in 0..<pixels.height {
                    let row = UnsafeMutableRawPointer(plane + y * stride)
                    for i in 0..<(w * 3) { row.storeBytes(of: level[Int(src[y * w * 3 + i])], toByteOffset: i * 2, as: UInt16.self) }
                }
            }
        }
    }

    private static func encodeNow(_ still: Still, _ p: PixelBuffer<UInt16>, bits: Int) throws -> [UInt8] {
        guard p.channels == 3, p.width > 0, p.height > 0 else {
            throw HEIFError(code: -1, subcode: 0, message: "expected RGB pixels", context: "encoding")
        }
        return try withNewImage(
            width: p.width, height: p.height, colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RRGGBB_LE,
            channel: heif_channel_interleaved, bits: bits
        ) { ctx, image, plane, stride in
            fill(plane, stride: stride, with: p, levels: SampleScale.levelsFromSixteen(bits: bits))
            if let icc = still.iccProfile, !icc.isEmpty {
                try icc.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count), "setting the colour profile") }
            }
            return try encodeFilled(ctx, image, still, width: p.width, height: p.height)
        }
    }
}
