import CRowLoops

extension PixelBuffer where Component == UInt8 {
    /// The width×height rectangle whose top-left pixel is (x, y) of the picture, as RGB at
    /// full size (the planes' matrix, full-range output), each chroma sample taken for its
    /// 2x2 block of luma, as libheif 1.19 converts a HEIC: a rectangle reads only the
    /// planes' rows under it, so a picture held as 4:2:0 (half the bytes of RGB) can be
    /// drawn a tile at a time. The planes' sides must be even.
    public static func rgb(_ p: YCbCr420Planes, x: Int, y: Int, width: Int, height: Int) -> PixelBuffer<UInt8> {
        precondition(p.width % 2 == 0 && p.height % 2 == 0, "4:2:0 planes of even sides")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= p.width && y + height <= p.height, "a rectangle of the picture")
        var out = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        let k = Coefficients(p)
        out.components.withUnsafeMutableBufferPointer { buffer in
            let o = buffer.baseAddress!
            for row in 0..<height {
                let sy = y + row
                camlib_row_420_rgb(
                    p.luma + sy * p.lumaStride, p.cb + sy / 2 * p.chromaStride, p.cr + sy / 2 * p.chromaStride, x, width, k.lumaScale,
                    k.lumaOffset, k.crToR, k.cbToG, k.crToG, k.cbToB, o + row * width * 3)
            }
        }
        return out
    }

    /// The planes' levels and matrix as the row loops take them: levels to 0 ... 255 and
    /// ±127.5, folded into the matrix.
    private struct Coefficients {
        var lumaScale: Float, lumaOffset: Float, crToR: Float, cbToG: Float, crToG: Float, cbToB: Float

        init(_ p: YCbCr420Planes) {
            (lumaScale, lumaOffset) = p.fullRange ? (1, 0) : (255 / 219, 16)
            let chromaScale: Float = p.fullRange ? 1 : 255 / 224
            let m = p.matrix
            (crToR, cbToB) = (m.crSpan * chromaScale, m.cbSpan * chromaScale)
            (cbToG, crToG) = (-m.kb * m.cbSpan / m.kg * chromaScale, -m.kr * m.crSpan / m.kg * chromaScale)
        }
    }

    /// The picture averaged down to half its width and height, as RGB (the planes' matrix,
    /// full-range output): each pixel from the mean of its 2x2 luma samples and the one
    /// chroma sample 4:2:0 already keeps for them, so nothing is resampled but the luma.
    /// What swscale's area filter makes of the same frame, at a fraction of its cost
    /// (it averages every plane through its general scaler). nil unless the picture's
    /// sides are even.
    public static func halvedRGB(_ p: YCbCr420Planes) -> PixelBuffer<UInt8>? {
        guard p.width >= 2, p.height >= 2, p.width % 2 == 0, p.height % 2 == 0 else { return nil }
        let w = p.width / 2, h = p.height / 2
        var out = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        let k = Coefficients(p)
        out.components.withUnsafeMutableBufferPointer { buffer in
            let o = buffer.baseAddress!
            for y in 0..<h {
                let above = p.luma + 2 * y * p.lumaStride
                camlib_rows_halved_rgb(
                    above, above + p.lumaStride, p.cb + y * p.chromaStride, p.cr + y * p.chromaStride, w, k.lumaScale, k.lumaOffset, k.crToR,
                    k.cbToG, k.crToG, k.cbToB, o + y * w * 3)
            }
        }
        return out
    }
}
