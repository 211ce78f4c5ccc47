internal import CFFmpeg
internal import CHeif
import Imaging

extension HEIFImage {
    /// Decodes and scales to fit `maxSide`, in display orientation, as 8-bit RGB.
    ///
    /// Decodes in the codec's own YCbCr and lets libswscale convert colour and scale in
    /// one pass, so colour conversion runs on the small image instead of all 12–48
    /// million pixels. Uses the image's nclx matrix and range (BT.601 full range, the
    /// HEIF default, when it has none). Other layouts go through libheif's RGB. A grid
    /// of more than `bandedAbove` pixels, shown uncropped, is decoded a row of tiles at a
    /// time through libheif's RGB and scaled from those bands (``PixelScaler/Bands``):
    /// a 197-megapixel 10-bit grid is 600 MB of YCbCr decoded whole.
    public func decodeScaled(maxSide: Int, bandedAbove: Int = PixelScaler.bandedAbovePixels) throws -> PixelBuffer<UInt8> {
        if let tiling = storedTiling, tiling.width * tiling.height > bandedAbove, !isCropped {
            return try decodeScaled(byTiles: tiling, maxSide: maxSide)
        }
        let image = try decode(colorspace: heif_colorspace_undefined, chroma: heif_chroma_undefined)
        defer { heif_image_release(image) }
        guard heif_image_get_colorspace(image) == heif_colorspace_YCbCr || heif_image_get_colorspace(image) == heif_colorspace_monochrome
        else { return try PixelScaler.scaledToFit(decodeRGB(), maxSide: maxSide) }

        let w = Int(heif_image_get_width(image, heif_channel_Y)), h = Int(heif_image_get_height(image, heif_channel_Y))
        guard w > 0, h > 0 else { throw HEIFError(code: -1, subcode: 0, message: "decoded image is empty", context: "decoding image item \(itemID)") }
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_Y))
        guard let format = Self.pixelFormat(chroma: heif_image_get_chroma_format(image), bits: bits) else {
            return try PixelScaler.scaledToFit(decodeRGB(), maxSide: maxSide)
        }
        let scale = min(1, Double(maxSide) / Double(max(w, h)))
        let dw = max(1, Int((Double(w) * scale).rounded())), dh = max(1, Int((Double(h) * scale).rounded()))

        try FFmpegLibrary.load()
        // sws_getContext → sws_freeContext.
        guard let sws = ff.sws_getContext(Int32(w), Int32(h), format, Int32(dw), Int32(dh), AV_PIX_FMT_RGB24, Self.swsFlags, nil, nil, nil)
        else { throw FFmpegError(message: "cannot convert the decoded HEIF image", call: "sws_getContext") }
        defer { ff.sws_freeContext(sws) }
        let (matrix, fullRange) = colorDetails(image)
        let coefficients = ff.sws_getCoefficients(matrix)
        _ = ff.sws_setColorspaceDetails(sws, coefficients, fullRange ? 1 : 0, ff.sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)

        var planes: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var strides: [Int32] = [0, 0, 0, 0]
        let channels = format == AV_PIX_FMT_GRAY8 || format == AV_PIX_FMT_GRAY10LE || format == AV_PIX_FMT_GRAY12LE
            ? [heif_channel_Y] : [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        for (i, channel) in channels.enumerated() {
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, channel, &stride) else {
                throw HEIFError(code: -1, subcode: 0, message: "decoded image lacks a colour plane", context: "decoding image item \(itemID)")
            }
            planes[i] = plane
            strides[i] = stride
        }
        var out = PixelBuffer<UInt8>(width: dw, height: dh, channels: 3)
        out.components.withUnsafeMutableBufferPointer { dst in
            var dstPlanes: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
            var dstStrides: [Int32] = [Int32(dw * 3), 0, 0, 0]
            _ = ff.sws_scale(sws, &planes, &strides, 0, Int32(h), &dstPlanes, &dstStrides)
        }
        return out
    }

    /// A grid scaled from its rows of tiles, decoded one row at a time as stored, then
    /// shown as its irot and imir say.
    private func decodeScaled(byTiles t: Tiling, maxSide: Int) throws -> PixelBuffer<UInt8> {
        let bands = try PixelScaler.Bands(width: t.width, height: t.height, channels: 3, maxSide: maxSide)
        let reader = HEIFTileReader(tiling: t) { try self.decodeStoredTileRGB(column: $0, row: $1) }
        for top in stride(from: 0, to: t.height, by: t.tileHeight) {
            bands.add(try reader.region(x: 0, y: top, width: t.width, height: min(t.tileHeight, t.height - top)))
        }
        return try bands.finish().applying(orientation)
    }

    /// Area scaling; accurate rounding and full chroma interpolation, without which
    /// swscale's fast path darkens by a level or two (seen against the corpus's AVIF
    /// reference PNGs).
    static let swsFlags = SWS_AREA | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP

    /// libheif stores samples deeper than 8 bits as native (little-endian) 16-bit words.
    static func pixelFormat(chroma: heif_chroma, bits: Int) -> AVPixelFormat? {
        switch (chroma, bits) {
        case (heif_chroma_420, 8): AV_PIX_FMT_YUV420P
        case (heif_chroma_420, 10): AV_PIX_FMT_YUV420P10LE
        case (heif_chroma_420, 12): AV_PIX_FMT_YUV420P12LE
        case (heif_chroma_422, 8): AV_PIX_FMT_YUV422P
        case (heif_chroma_422, 10): AV_PIX_FMT_YUV422P10LE
        case (heif_chroma_422, 12): AV_PIX_FMT_YUV422P12LE
        case (heif_chroma_444, 8): AV_PIX_FMT_YUV444P
        case (heif_chroma_444, 10): AV_PIX_FMT_YUV444P10LE
        case (heif_chroma_444, 12): AV_PIX_FMT_YUV444P12LE
        case (heif_chroma_monochrome, 8): AV_PIX_FMT_GRAY8
        case (heif_chroma_monochrome, 10): AV_PIX_FMT_GRAY10LE
        case (heif_chroma_monochrome, 12): AV_PIX_FMT_GRAY12LE
        default: nil
        }
    }

    /// The swscale matrix (SWS_CS_*) and range of a decoded image's nclx profile.
    func colorDetails(_ image: OpaquePointer) -> (Int32, Bool) {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        // heif_image_get_nclx_color_profile → heif_nclx_color_profile_free.
        var err = heif_image_get_nclx_color_profile(image, &nclx)
        if err.code != heif_error_Ok || nclx == nil { err = heif_image_handle_get_nclx_color_profile(handle, &nclx) }
        guard err.code == heif_error_Ok, let profile = nclx else { return (SWS_CS_ITU601, true) }
        defer { heif_nclx_color_profile_free(profile) }
        let matrix: Int32 =
            switch profile.pointee.matrix_coefficients.rawValue {
            case 1: SWS_CS_ITU709
            case 9, 10: SWS_CS_BT2020
            case 7: SWS_CS_SMPTE240M
            case 4: SWS_CS_FCC
            default: SWS_CS_ITU601
            }
        return (matrix, profile.pointee.full_range_flag != 0)
    }
}
