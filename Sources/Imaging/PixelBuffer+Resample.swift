extension PixelBuffer where Component == UInt8 {
    /// A copy scaled down so that neither side exceeds `maxSide`, keeping the aspect ratio;
    /// the buffer itself when it already fits.
    ///
    /// Area averaging (each output pixel is the mean of the source pixels it covers, with
    /// fractional weights at the edges) so thumbnails do not alias.
    public func scaledToFit(maxSide: Int) -> PixelBuffer {
        precondition(maxSide > 0)
        let longest = max(width, height)
        guard longest > maxSide, width > 0, height > 0 else { return self }
        let scale = Double(maxSide) / Double(longest)
        let outW = max(1, Int((Double(width) * scale).rounded()))
        let outH = max(1, Int((Double(height) * scale).rounded()))
        return resampled(width: outW, height: outH)
    }

    /// Area-averaged resample to exactly `width` × `height` (downscaling only).
    public func resampled(width outW: Int, height outH: Int) -> PixelBuffer {
        precondition(outW > 0 && outH > 0 && outW <= width && outH <= height, "resampled only scales down")
        let ch = channels
        let xWeights = Self.areaWeights(source: width, target: outW)
        let yWeights = Self.areaWeights(source: height, target: outH)
        // Horizontal pass into a float row buffer per source row, then vertical accumulation.
        var rows = [Float](repeating: 0, count: outW * ch * height)
        components.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let srow = y * width * ch
                    let drow = y * outW * ch
                    for ox in 0..<outW {
                        for (sx, weight) in xWeights[ox] {
                            for c in 0..<ch { dst[drow + ox * ch + c] += Float(src[srow + sx * ch + c]) * weight }
                        }
                    }
                }
            }
        }
        var out = PixelBuffer(width: outW, height: outH, channels: ch)
        var acc = [Float](repeating: 0, count: outW * ch)
        out.components.withUnsafeMutableBufferPointer { dst in
            rows.withUnsafeBufferPointer { rowsBuf in
                for oy in 0..<outH {
                    for i in 0..<acc.count { acc[i] = 0 }
                    for (sy, weight) in yWeights[oy] {
                        let base = sy * outW * ch
                        for i in 0..<acc.count { acc[i] += rowsBuf[base + i] * weight }
                    }
                    let drow = oy * outW * ch
                    for i in 0..<acc.count { dst[drow + i] = UInt8(clamping: Int((acc[i]).rounded())) }
                }
            }
        }
        return out
    }

    /// For each target index, the source indices it covers and their normalised weights.
    static func areaWeights(source: Int, target: Int) -> [[(Int, Float)]] {
        let ratio = Double(source) / Double(target)
        return (0..<target).map { t in
            let start = Double(t) * ratio, end = Double(t + 1) * ratio
            var list: [(Int, Float)] = []
            var s = Int(start)
            while Double(s) < end && s < source {
                let overlap = min(end, Double(s + 1)) - max(start, Double(s))
                if overlap > 0 { list.append((s, Float(overlap / ratio))) }
                s += 1
            }
            return list
        }
    }
}
