import Dispatch

extension PixelBuffer {
    /// The pixels as ``applying(_:)`` displays them when stored with `orientation`, made
    /// in the picture's own storage. A mirror swaps pixels; a quarter turn is a transpose
    /// of the picture mirrored first, made in three moves: the rows cut into strips of 64
    /// pixels and the strips gathered one after another (a transpose of the strips, each
    /// cycle of it followed through one strip's worth of pixels), then each strip
    /// transposed through a scratch buffer of its size. A quarter turn of a 200-megapixel
    /// photo then holds one copy of it and a few megabytes, not two copies. When the
    /// storage is shared with another buffer, it is copied first, as any change copies it.
    public consuming func reoriented(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let (w, h, ch) = (width, height, channels)
        let (outW, outH) = orientation.displayedSize(width: w, height: h)
        guard w > 0, h > 0, ch > 0 else { return PixelBuffer(width: outW, height: outH, channels: ch) }
        let m = orientation.sourceMapping(width: w, height: h)
        // Displayed (x, y) is stored (bx·y + cx, ay·x + cy) for a quarter turn: the
        // transpose of the stored picture mirrored where bx or ay is negative.
        let (mirrorX, mirrorY) = orientation.swapsDimensions ? (m.bx < 0, m.ay < 0) : (m.ax < 0, m.by < 0)
        var storage: [Component] = []
        swap(&storage, &components)
        storage.withUnsafeMutableBytes { bytes in
            let moves = PixelMoves(bytes: bytes.baseAddress!, width: w, height: h, mirrorX: mirrorX, mirrorY: mirrorY, transpose: orientation.swapsDimensions)
            moves.run(sampleBytes: MemoryLayout<Component>.stride, channels: ch)
        }
        return PixelBuffer(width: outW, height: outH, channels: ch, components: storage)
    }
}

/// A mirror and a transpose of a w×h picture, made in its storage.
private struct PixelMoves: PixelWork {
    nonisolated(unsafe) var bytes: UnsafeMutableRawPointer
    var width: Int, height: Int
    var mirrorX: Bool, mirrorY: Bool, transpose: Bool

    /// Strips of 64 pixels: a strip's rows are 64 pixels long, so a transposed strip's
    /// reads stay in cache, and the strips' transpose moves 64 pixels at a time.
    static let strip = 64

    func run<P>(_: P.Type, units: Int) {
        bytes.withMemoryRebound(to: P.self, capacity: width * height * units) { p in
            mirror(p, units: units)
            if transpose { transposeInPlace(p, units: units) }
        }
    }

    @inline(__always)
    private func swapPixels<P>(_ a: UnsafeMutablePointer<P>, _ b: UnsafeMutablePointer<P>, units: Int) {
        for k in 0..<units { (a[k], b[k]) = (b[k], a[k]) }
    }

    /// The picture mirrored left to right and/or top to bottom; bands of rows on every core.
    private func mirror<P>(_ base: UnsafeMutablePointer<P>, units u: Int) {
        let (w, h) = (width, height)
        nonisolated(unsafe) let p = base
        switch (mirrorX, mirrorY) {
        case (true, true):
            // Both: every pixel trades places with its opposite, in chunks of the first half.
            let half = w * h / 2
            let chunk = Swift.max(1 << 16, half / 64 + 1)
            DispatchQueue.concurrentPerform(iterations: (half + chunk - 1) / chunk) { k in
                for i in (k * chunk)..<Swift.min(half, (k + 1) * chunk) { swapPixels(p + i * u, p + (w * h - 1 - i) * u, units: u) }
            }
        case (true, false):
            DispatchQueue.concurrentPerform(iterations: h) { y in
                let row = p + y * w * u
                for x in 0..<(w / 2) { swapPixels(row + x * u, row + (w - 1 - x) * u, units: u) }
            }
        case (false, true):
            DispatchQueue.concurrentPerform(iterations: h / 2) { y in
                swapPixels(p + y * w * u, p + (h - 1 - y) * w * u, units: w * u)
            }
        case (false, false):
            break
        }
    }

    /// The w×h picture replaced by its h×w transpose.
    private func transposeInPlace<P>(_ base: UnsafeMutablePointer<P>, units u: Int) {
        let (w, h, strip) = (width, height, Self.strip)
        let (strips, rest) = (w / strip, w % strip)
        let (wide, block) = (strips * strip, strip * u)
        // The columns past the last whole strip are set aside, and the rows closed up
        // over them (each row moves back, never past a row still to move).
        let side = UnsafeMutablePointer<P>.allocate(capacity: h * rest * u)
        defer { side.deallocate() }
        if rest > 0 {
            for y in 0..<h { (side + y * rest * u).initialize(from: base + (y * w + wide) * u, count: rest * u) }
            for y in 1..<h where wide > 0 {
                UnsafeMutableRawPointer(base + y * wide * u).copyMemory(from: base + y * w * u, byteCount: wide * u * MemoryLayout<P>.stride)
            }
        }
        // The h×strips matrix of strip-wide blocks transposed: the block at position q
        // comes from q·strips mod (n − 1); the first and the last stay.
        let n = h * strips
        if strips > 1, h > 1 {
            let last = n - 1
            var moved = [UInt64](repeating: 0, count: n / 64 + 1)
            let held = UnsafeMutablePointer<P>.allocate(capacity: block)
            defer { held.deallocate() }
            for start in 1..<last where moved[start >> 6] & (1 << UInt64(start & 63)) == 0 {
                held.initialize(from: base + start * block, count: block)
                var to = start
                while true {
                    moved[to >> 6] |= 1 << UInt64(to & 63)
                    let from = (to * strips) % last
                    if from == start { break }
                    (base + to * block).update(from: base + from * block, count: block)
                    to = from
                }
                (base + to * block).update(from: held, count: block)
            }
        }
        // Each strip, now an h×64 picture where its 64 transposed rows go, transposed
        // through a copy of it; then the columns set aside, into the last rows.
        nonisolated(unsafe) let p = base
        DispatchQueue.concurrentPerform(iterations: strips) { s in
            let place = p + s * h * block
            let copy = UnsafeMutablePointer<P>.allocate(capacity: h * block)
            defer { copy.deallocate() }
            copy.initialize(from: place, count: h * block)
            transposed(copy, rows: h, columns: strip, units: u, into: place)
        }
        if rest > 0 { transposed(side, rows: h, columns: rest, units: u, into: base + wide * h * u) }
    }

    /// The rows×columns picture at `src` written transposed (columns×rows) from `dst` on,
    /// a tile of 64 rows at a time so the reads stay in cache.
    private func transposed<P>(_ src: UnsafePointer<P>, rows: Int, columns: Int, units u: Int, into dst: UnsafeMutablePointer<P>) {
        for top in stride(from: 0, to: rows, by: 64) {
            let bottom = Swift.min(rows, top + 64)
            for x in 0..<columns {
                var d = dst + (x * rows + top) * u
                var s = src + (top * columns + x) * u
                for _ in top..<bottom {
                    movePixel(d, s, units: u)
                    d += u
                    s += columns * u
                }
            }
        }
    }
}
