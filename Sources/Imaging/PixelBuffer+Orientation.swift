extension PixelBuffer {
    /// The pixels as they are displayed when stored with `orientation`.
    ///
    /// For every displayed pixel, finds the stored pixel it comes from, tile by tile, so
    /// the output is written in order and the source read from cache.
    @inlinable
    public func applying(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let (outW, outH) = orientation.displayedSize(width: width, height: height)
        var out = PixelBuffer(width: outW, height: outH, channels: channels)
        let w = width, h = height, ch = channels
        // The source pixel of (x, y) is (ax·x + bx·y + cx, ay·x + by·y + cy), so its
        // index steps by a constant along x and along y.
        let (ax, bx, cx, ay, by, cy) = orientation.sourceMapping(width: w, height: h)
        let stepX = (ay * w + ax) * ch, stepY = (by * w + bx) * ch, base = (cy * w + cx) * ch
        let source = components
        // In 64x64 tiles, so a quarter turn reads the source's rows from cache.
        let tile = 64
        out.components.withUnsafeMutableBufferPointer { dst in
            source.withUnsafeBufferPointer { src in
                for ty in stride(from: 0, to: outH, by: tile) {
                    for tx in stride(from: 0, to: outW, by: tile) {
                        for y in ty..<min(outH, ty + tile) {
                            var s = base + tx * stepX + y * stepY
                            var d = (y * outW + tx) * ch
                            for _ in tx..<min(outW, tx + tile) {
                                for c in 0..<ch { dst[d + c] = src[s + c] }
                                s += stepX
                                d += ch
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
