extension PixelBuffer {
    /// The pixels as they are displayed when stored with `orientation`.
    ///
    /// For every displayed pixel, finds the stored pixel it comes from, tile by tile, so
    /// the output is written in order and the source read from cache.
    public func applying(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let (outW, outH) = orientation.displayedSize(width: width, height: height)
        guard width > 0, height > 0, channels > 0 else { return PixelBuffer(width: outW, height: outH, channels: channels) }
        let (w, h, ch) = (width, height, channels)
        return components.withUnsafeBytes { source in
            PixelBuffer(width: outW, height: outH, channels: ch) { out in
                let copy = OrientedCopy(
                    source: source.baseAddress!, into: UnsafeMutableRawPointer(out.baseAddress!), width: outW, height: outH,
                    mapping: orientation.sourceMapping(width: w, height: h), sourceWidth: w)
                copy.run(sampleBytes: MemoryLayout<Component>.stride, channels: ch)
            }
        }
    }
}

/// A reoriented copy: each pixel of a width×height output from its place in the source.
private struct OrientedCopy: PixelWork {
    var source: UnsafeRawPointer, into: UnsafeMutableRawPointer
    var width: Int, height: Int
    var mapping: (ax: Int, bx: Int, cx: Int, ay: Int, by: Int, cy: Int)
    var sourceWidth: Int

    func run<P>(_: P.Type, units u: Int) {
        let count = width * height * u
        source.withMemoryRebound(to: P.self, capacity: count) { src in
            into.withMemoryRebound(to: P.self, capacity: count) { dst in copy(from: src, into: dst, units: u) }
        }
    }

    private func copy<P>(from src: UnsafePointer<P>, into dst: UnsafeMutablePointer<P>, units u: Int) {
        let (m, outW, outH, w) = (mapping, width, height, sourceWidth)
        // The source pixel of (x, y) is (ax·x + bx·y + cx, ay·x + by·y + cy), so its
        // index steps by a constant along x and along y.
        let stepX = (m.ay * w + m.ax) * u, stepY = (m.by * w + m.bx) * u, base = (m.cy * w + m.cx) * u
        // In 64x64 tiles, so a quarter turn reads the source's rows from cache.
        let tile = 64
        for ty in stride(from: 0, to: outH, by: tile) {
            for tx in stride(from: 0, to: outW, by: tile) {
                for y in ty..<min(outH, ty + tile) {
                    var s = src + base + tx * stepX + y * stepY
                    var d = dst + (y * outW + tx) * u
                    for _ in tx..<min(outW, tx + tile) {
                        movePixel(d, s, units: u)
                        s += stepX
                        d += u
                    }
                }
            }
        }
    }
}
