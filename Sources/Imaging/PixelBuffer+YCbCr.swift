import CRowLoops

extension PixelBuffer where Component == UInt8 {
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
        // Levels to 0 ... 255 and ±127.5, folded into the matrix.
        let lumaScale: Float = p.fullRange ? 1 : 255 / 219, lumaOffset: Float = p.fullRange ? 0 : 16
        let chromaScale: Float = p.fullRange ? 1 : 255 / 224
        let m = p.matrix
        let crToR = m.crSpan * chromaScale, cbToB = m.cbSpan * chromaScale
        let cbToG = -m.kb * m.cbSpan / m.kg * chromaScale, crToG = -m.kr * m.crSpan / m.kg * chromaScale
        out.components.withUnsafeMutableBufferPointer { buffer in
            let o = buffer.baseAddress!
            for y in 0..<h {
                let above = p.luma + 2 * y * p.lumaStride
                camlib_rows_halved_rgb(
                    above, above + p.lumaStride, p.cb + y * p.chromaStride, p.cr + y * p.chromaStride, w, lumaScale, lumaOffset, crToR,
                    cbToG, crToG, cbToB, o + y * w * 3)
            }
        }
        return out
    }
}
