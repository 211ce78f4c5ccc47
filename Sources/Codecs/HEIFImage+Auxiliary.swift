internal import CHeif
import Containers
import Imaging

/// An auxiliary image item of a HEIF image (`auxl` reference, `auxC` type): depth,
/// Apple's mattes and gain map, or anything else a camera stores beside the photo.
public final class HEIFAuxiliaryImage {
    /// From heif_image_handle_get_auxiliary_image_handle; released in deinit.
    let image: HEIFImage

    public let urn: String
    public var itemID: UInt32 { image.itemID }
    /// Displayed size: after the item's own irot/imir, as libheif decodes it.
    public var width: Int { image.width }
    public var height: Int { image.height }
    public var orientation: EXIFOrientation { image.orientation }
    /// Bits per luma sample as coded (8, 10, …).
    public var bitDepth: Int { Int(heif_image_handle_get_luma_bits_per_pixel(image.handle)) }
    /// 1 for a monochrome item, else 3: what the codec stores decides gray versus colour
    /// (known from the item's configuration, without decoding it).
    public var channels: Int {
        var colorspace = heif_colorspace_undefined
        var chroma = heif_chroma_undefined
        _ = heif_image_handle_get_preferred_decoding_colorspace(image.handle, &colorspace, &chroma)
        return colorspace == heif_colorspace_monochrome || chroma == heif_chroma_monochrome ? 1 : 3
    }
    /// XMP attached to the item (Apple's `apdi` pixel data info, depth calibration, …).
    public var xmp: [UInt8]? { image.metadataBlocks(type: "mime").first }

    /// The image this item belongs to (kept alive while the item is).
    let parent: HEIFImage

    init(image: HEIFImage, urn: String, parent: HEIFImage) {
        self.image = image
        self.urn = urn
        self.parent = parent
    }

    /// The ISO 23008-2 depth representation of a depth item (`urn:mpeg:hevc:2015:auxid:2`),
    /// when the file carries one; nil for any other auxiliary image.
    public var depthRepresentation: DepthRepresentation? {
        // libheif 1.19 reads the depth channel of the handle it is given (the depth item's
        // own, or its parent's), and dereferences null when that handle has none: a matte
        // of a photo without depth crashed it. So only a depth item asks, with its own handle.
        guard AuxiliaryImageType.depthURNs.contains(urn) else { return nil }
        var info: UnsafePointer<heif_depth_representation_info>?
        // heif_depth_representation_info_free releases what this call returns.
        guard heif_image_handle_get_depth_image_representation_info(image.handle, itemID, &info) != 0, let info else { return nil }
        defer { heif_depth_representation_info_free(info) }
        let i = info.pointee
        let kind: DepthRepresentation.Kind =
            switch i.depth_representation_type {
            case heif_depth_representation_type_uniform_inverse_Z: .uniformInverseZ
            case heif_depth_representation_type_uniform_disparity: .uniformDisparity
            case heif_depth_representation_type_uniform_Z: .uniformZ
            default: .nonuniformDisparity
            }
        return DepthRepresentation(
            kind: kind, zNear: i.has_z_near != 0 ? i.z_near : nil, zFar: i.has_z_far != 0 ? i.z_far : nil,
            dMin: i.has_d_min != 0 ? i.d_min : nil, dMax: i.has_d_max != 0 ? i.d_max : nil)
    }

    /// Decodes the item's samples exactly as coded (no tone mapping): monochrome items as
    /// 1 channel, others as RGB; 8-bit, or 16-bit with the coded bit depth significant.
    /// Orientation (the item's irot/imir) is applied.
    public func decodeSamples() throws -> ImageSamples {
        let deep = bitDepth > 8
        let isGray = channels == 1
        let raw =
            isGray
            ? try image.decode(colorspace: heif_colorspace_monochrome, chroma: heif_chroma_monochrome, keepHighBitDepth: deep)
            : try image.decode(
                colorspace: heif_colorspace_RGB, chroma: deep ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB,
                keepHighBitDepth: deep)
        defer { heif_image_release(raw) }
        let channel = isGray ? heif_channel_Y : heif_channel_interleaved
        let channels = isGray ? 1 : 3
        let w = Int(heif_image_get_width(raw, channel)), h = Int(heif_image_get_height(raw, channel))
        let storedBits = Int(heif_image_get_bits_per_pixel_range(raw, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(raw, channel, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "decoded auxiliary image has no pixels", context: "decoding item \(itemID)")
        }
        if storedBits <= 8 {
            var out = PixelBuffer<UInt8>(width: w, height: h, channels: channels)
            out.components.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    (dst.baseAddress! + y * w * channels).update(from: plane + y * Int(stride), count: w * channels)
                }
            }
            return .eight(out)
        }
        var out = PixelBuffer<UInt16>(width: w, height: h, channels: channels)
        out.components.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let row = UnsafeRawPointer(plane + y * Int(stride))
                for i in 0..<(w * channels) {
                    dst[y * w * channels + i] = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                }
            }
        }
        return .sixteen(out, significantBits: storedBits)
    }
}

extension HEIFImage {
    /// The image's auxiliary items, alpha planes excluded (they are part of the image).
    /// An item libheif cannot open is reported in `problems` with its id.
    public func auxiliaryImages() -> (images: [HEIFAuxiliaryImage], problems: [String]) {
        let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA)
        let n = heif_image_handle_get_number_of_auxiliary_images(handle, filter)
        guard n > 0 else { return ([], []) }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_image_handle_get_list_of_auxiliary_image_IDs(handle, filter, &ids, n)
        var images: [HEIFAuxiliaryImage] = []
        var problems: [String] = []
        for id in ids.prefix(Int(got)) {
            var aux: OpaquePointer?
            let err = heif_image_handle_get_auxiliary_image_handle(handle, id, &aux)
            guard err.code == heif_error_Ok, let aux else {
                problems.append("auxiliary item \(id): \(err.message.map { String(cString: $0) } ?? "cannot be opened")")
                continue
            }
            let wrapped = HEIFImage(handle: aux, file: file)
            var type: UnsafePointer<CChar>?
            var urn = ""
            // heif_image_handle_release_auxiliary_type frees what get_auxiliary_type returns.
            if heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok, let t = type {
                urn = String(cString: t)
                heif_image_handle_release_auxiliary_type(aux, &type)
            }
            images.append(HEIFAuxiliaryImage(image: wrapped, urn: urn, parent: self))
        }
        return (images, problems)
    }
}
