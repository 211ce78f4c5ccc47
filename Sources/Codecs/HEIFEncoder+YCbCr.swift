internal import CHeif
import Imaging

extension HEIFEncoder {
    /// Encodes a photo that `draw` paints straight into 8-bit Y'CbCr 4:2:0 planes of
    /// `width`×`height` (both even), as HEVC codes it: no RGB picture is held, nor
    /// converted by libheif. The planes are BT.601, full range, which is what libheif
    /// turns RGB into and what the file then says in its bitstream (and its nclx `colr`
    /// when there is no ICC profile), so a render made this way is tagged as one made
    /// from RGB is. `still` gives everything but the pixels (its `pixels` are not read);
    /// HEVC only. The byte budget is kept as `encodeRGB` keeps it, from a trial of
    /// patches copied out of the drawn planes: the picture is drawn once.
    public static func encodeYCbCr420(_ still: Still, width: Int, height: Int, draw: (YCbCr420Planes) throws -> Void) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        guard still.compression == .hevc, width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw HEIFError(code: -1, subcode: 0, message: "4:2:0 planes of \(width)x\(height) for \(still.compression)", context: "encoding")
        }
        let picture = try YCbCrImage(width: width, height: height, iccProfile: still.iccProfile)
        try draw(picture.planes)
        return try fittingBudget(still, width: width, height: height, encode: { try picture.encode($0) }) { settings in
            let trial = try picture.samplePatches(iccProfile: settings.iccProfile)
            return (try codedBytes(of: trial.encode(settings)), trial.planes.width * trial.planes.height)
        }
    }

    /// A libheif Y'CbCr 4:2:0 image of its own (BT.601, full range), and its planes.
    final class YCbCrImage {
        let image: OpaquePointer
        let planes: YCbCr420Planes

        init(width: Int, height: Int, iccProfile: [UInt8]?) throws {
            // heif_image_create → heif_image_release (in deinit, or below on failure).
            var created: OpaquePointer?
            try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_YCbCr, heif_chroma_420, &created), "creating the image")
            guard let created else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: "encoding") }
            var made = false
            defer { if !made { heif_image_release(created) } }
            let sizes = [(heif_channel_Y, width, height), (heif_channel_Cb, width / 2, height / 2), (heif_channel_Cr, width / 2, height / 2)]
            var pointers: [UnsafeMutablePointer<UInt8>] = []
            var strides: [Int] = []
            for (channel, w, h) in sizes {
                try check(heif_image_add_plane(created, channel, Int32(w), Int32(h), 8), "adding a plane")
                var stride: Int32 = 0
                guard let plane = heif_image_get_plane(created, channel, &stride) else {
                    throw HEIFError(code: -1, subcode: 0, message: "no plane", context: "encoding")
                }
                pointers.append(plane)
                strides.append(Int(stride))
            }
            guard strides[1] == strides[2] else { throw HEIFError(code: -1, subcode: 0, message: "chroma planes of different strides", context: "encoding") }
            // The matrix the planes are drawn in (libheif copies the profile).
            let nclx = try sRGBDescription()
            defer { heif_nclx_color_profile_free(nclx) }
            try check(heif_image_set_nclx_color_profile(created, nclx), "setting the matrix")
            if let icc = iccProfile, !icc.isEmpty {
                try icc.withUnsafeBytes { try check(heif_image_set_raw_color_profile(created, "prof", $0.baseAddress, $0.count), "setting the colour profile") }
            }
            image = created
            planes = YCbCr420Planes(
                luma: pointers[0], lumaStride: strides[0], cb: pointers[1], cr: pointers[2], chromaStride: strides[1], width: width,
                height: height, fullRange: true, matrix: .bt601)
            made = true
        }

        deinit { heif_image_release(image) }

        /// The image coded as `still` says (its pixels not read), in a context of its own.
        func encode(_ still: Still) throws -> [UInt8] {
            // heif_context_alloc → heif_context_free.
            guard let ctx = heif_context_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no context", context: "encoding") }
            defer { heif_context_free(ctx) }
            return try encodeFilled(ctx, image, still, width: planes.width, height: planes.height)
        }

        /// A mosaic of 4x4 patches, each from the middle of its sixteenth of the picture
        /// (as `samplePatches` makes of RGB), for the trial that predicts the bytes.
        func samplePatches(iccProfile: [UInt8]?) throws -> YCbCrImage {
            let p = planes
            let pw = max(16, p.width / 16) & ~1, ph = max(16, p.height / 16) & ~1
            let out = try YCbCrImage(width: pw * 4, height: ph * 4, iccProfile: iccProfile)
            let o = out.planes
            for ty in 0..<4 {
                for tx in 0..<4 {
                    let sx = ((2 * tx + 1) * p.width / 8 - pw / 2) & ~1, sy = ((2 * ty + 1) * p.height / 8 - ph / 2) & ~1
                    for y in 0..<ph {
                        (o.luma + (ty * ph + y) * o.lumaStride + tx * pw).update(from: p.luma + (sy + y) * p.lumaStride + sx, count: pw)
                    }
                    for y in 0..<(ph / 2) {
                        let (dst, src) = ((ty * ph / 2 + y) * o.chromaStride + tx * pw / 2, (sy / 2 + y) * p.chromaStride + sx / 2)
                        (o.cb + dst).update(from: p.cb + src, count: pw / 2)
                        (o.cr + dst).update(from: p.cr + src, count: pw / 2)
                    }
                }
            }
            return out
        }
    }
}
