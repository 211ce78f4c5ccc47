internal import CHeif
import Imaging

extension HEIFImage {
    /// Decodes the whole picture as stored (no irot/imir/clap) to 8-bit Y'CbCr 4:2:0, as
    /// an iPhone HEIC is coded (nothing converted; deeper samples are reduced to 8 bits,
    /// other chroma layouts converted, by libheif), and hands `body` its planes, which
    /// live until `body` returns. nil, with nothing decoded, when the picture's sides are
    /// not even; nil, decoded but not handed on, when its matrix is not one `YCbCrMatrix`
    /// knows: the caller then decodes RGB.
    public func withStoredYCbCr420<T>(_ body: (YCbCr420Planes) throws -> T) throws -> T? {
        let stored = storedSize
        guard stored.width > 0, stored.height > 0, stored.width % 2 == 0, stored.height % 2 == 0 else { return nil }
        let image = try decode(colorspace: heif_colorspace_YCbCr, chroma: heif_chroma_420, asStored: true)
        // decode → heif_image_release.
        defer { heif_image_release(image) }
        let channels = [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        guard channels.allSatisfy({ heif_image_get_bits_per_pixel_range(image, $0) == 8 }) else { return nil }
        // The matrix the image says it is coded in (from its colr box or its bitstream);
        // libheif converts with BT.601, full range, when it says nothing.
        var matrix = YCbCrMatrix.bt601, fullRange = true
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        if heif_image_get_nclx_color_profile(image, &nclx).code == heif_error_Ok, let nclx {
            // heif_image_get_nclx_color_profile → heif_nclx_color_profile_free.
            defer { heif_nclx_color_profile_free(nclx) }
            // Unspecified (2, as Android phones write it) is BT.601 to libheif too.
            let code = Int(nclx.pointee.matrix_coefficients.rawValue)
            guard let named = code == 2 ? .bt601 : YCbCrMatrix(h273: code) else { return nil }
            (matrix, fullRange) = (named, nclx.pointee.full_range_flag != 0)
        }
        var strides: [Int32] = [0, 0, 0]
        let planes = channels.indices.map { heif_image_get_plane(image, channels[$0], &strides[$0]) }
        guard let luma = planes[0], let cb = planes[1], let cr = planes[2], strides[1] == strides[2],
            Int(heif_image_get_width(image, heif_channel_Y)) == stored.width, Int(heif_image_get_height(image, heif_channel_Y)) == stored.height
        else { throw HEIFError(code: -1, subcode: 0, message: "decoded image has no 4:2:0 planes of its size", context: "decoding image item \(itemID)") }
        return try body(
            YCbCr420Planes(
                luma: luma, lumaStride: Int(strides[0]), cb: cb, cr: cr, chromaStride: Int(strides[1]), width: stored.width,
                height: stored.height, fullRange: fullRange, matrix: matrix))
    }
}
