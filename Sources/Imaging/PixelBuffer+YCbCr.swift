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
        typealias V = SIMD8<Float>
        // Levels to 0 ... 255 and ±127.5, folded into the matrix.
        let lumaScale: Float = p.fullRange ? 1 : 255 / 219, lumaOffset: Float = p.fullRange ? 0 : 16
        let chromaScale: Float = p.fullRange ? 1 : 255 / 224
        let m = p.matrix
        let crToR = m.crSpan * chromaScale, cbToB = m.cbSpan * chromaScale
        let cbToG = -m.kb * m.cbSpan / m.kg * chromaScale, crToG = -m.kr * m.crSpan / m.kg * chromaScale
        out.components.withUnsafeMutableBufferPointer { buffer in
            let o = buffer.baseAddress!
            for y in 0..<h {
                let above = p.luma + 2 * y * p.lumaStride, below = above + p.lumaStride
                let cb = p.cb + y * p.chromaStride, cr = p.cr + y * p.chromaStride
                let row = o + y * w * 3
                var x = 0
                while x + 8 <= w {
                    let a = SIMD16<Float>(UnsafeRawPointer(above + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self))
                    let b = SIMD16<Float>(UnsafeRawPointer(below + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self))
                    let sum = a + b
                    let luma = ((sum.evenHalf + sum.oddHalf) * 0.25 - lumaOffset) * lumaScale
                    let u = V(UnsafeRawPointer(cb + x).loadUnaligned(as: SIMD8<UInt8>.self)) - 128
                    let v = V(UnsafeRawPointer(cr + x).loadUnaligned(as: SIMD8<UInt8>.self)) - 128
                    let r = NearestByte.words(clamping: luma + crToR * v)
                    let g = NearestByte.words(clamping: luma + cbToG * u + crToG * v)
                    let bl = NearestByte.words(clamping: luma + cbToB * u)
                    let q = row + x * 3
                    for k in 0..<8 {
                        q[k * 3] = UInt8(truncatingIfNeeded: r[k])
                        q[k * 3 + 1] = UInt8(truncatingIfNeeded: g[k])
                        q[k * 3 + 2] = UInt8(truncatingIfNeeded: bl[k])
                    }
                    x += 8
                }
                while x < w {
                    let sum = Float(above[2 * x]) + Float(above[2 * x + 1]) + Float(below[2 * x]) + Float(below[2 * x + 1])
                    let luma = (sum * 0.25 - lumaOffset) * lumaScale
                    let u = Float(cb[x]) - 128, v = Float(cr[x]) - 128
                    let q = row + x * 3
                    q[0] = NearestByte.byte(min(255, max(0, luma + crToR * v)))
                    q[1] = NearestByte.byte(min(255, max(0, luma + cbToG * u + crToG * v)))
                    q[2] = NearestByte.byte(min(255, max(0, luma + cbToB * u)))
                    x += 1
                }
            }
        }
        return out
    }
}
