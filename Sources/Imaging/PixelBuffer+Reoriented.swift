import Dispatch

extension PixelBuffer {
    /// The pixels as ``applying(_:)`` displays them when stored with `orientation`, made
    /// in the picture's own storage. A mirror swaps samples; a quarter turn is a transpose
    /// of the picture mirrored first, made in three moves: the rows cut into strips of 64
    /// pixels and the strips gathered one after another (a transpose of the strips, each
    /// cycle of it followed through one strip's worth of samples), then each strip
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
        storage.withUnsafeMutableBufferPointer { samples in
            let p = samples.baseAddress!
            Self.mirror(p, width: w, height: h, channels: ch, horizontally: mirrorX, vertically: mirrorY)
            if orientation.swapsDimensions { Self.transpose(p, width: w, height: h, channels: ch) }
        }
        return PixelBuffer(width: outW, height: outH, channels: ch, components: storage)
    }

    /// The w×h picture at `p` mirrored left to right and/or top to bottom, in place.
    private static func mirror(_ p: UnsafeMutablePointer<Component>, width w: Int, height h: Int, channels ch: Int, horizontally: Bool, vertically: Bool) {
        func swapPixels(_ i: Int, _ j: Int) {
            for c in 0..<ch { (p[i * ch + c], p[j * ch + c]) = (p[j * ch + c], p[i * ch + c]) }
        }
        switch (horizontally, vertically) {
        case (true, true):
            // Both: every pixel trades places with its opposite.
            let n = w * h
            for i in 0..<(n / 2) { swapPixels(i, n - 1 - i) }
        case (true, false):
            for y in 0..<h {
                for x in 0..<(w / 2) { swapPixels(y * w + x, y * w + w - 1 - x) }
            }
        case (false, true):
            let row = w * ch
            for y in 0..<(h / 2) {
                let (top, bottom) = (p + y * row, p + (h - 1 - y) * row)
                for k in 0..<row { (top[k], bottom[k]) = (bottom[k], top[k]) }
            }
        case (false, false):
            break
        }
    }

    /// The w×h picture at `p` replaced by its h×w transpose, in place.
    private static func transpose(_ p: UnsafeMutablePointer<Component>, width w: Int, height h: Int, channels ch: Int) {
        let strip = 64
        let (strips, rest) = (w / strip, w % strip)
        let (wide, block) = (strips * strip, strip * ch)
        // The columns past the last whole strip are set aside, and the rows closed up
        // over them (each row moves back, never past a row still to move).
        var side: [Component] = []
        if rest > 0 {
            side = [Component](unsafeUninitializedCapacity: h * rest * ch) { out, written in
                for y in 0..<h { (out.baseAddress! + y * rest * ch).initialize(from: p + (y * w + wide) * ch, count: rest * ch) }
                written = h * rest * ch
            }
            for y in 1..<Swift.max(1, h) where wide > 0 {
                UnsafeMutableRawPointer(p + y * wide * ch).copyMemory(from: p + y * w * ch, byteCount: wide * ch * MemoryLayout<Component>.stride)
            }
        }
        // The h×strips matrix of strip-wide blocks transposed: the block at position q
        // comes from q·strips mod (n − 1); the first and the last stay.
        let n = h * strips
        if strips > 1, h > 1 {
            let last = n - 1
            var moved = [UInt64](repeating: 0, count: n / 64 + 1)
            let held = UnsafeMutablePointer<Component>.allocate(capacity: block)
            defer { held.deallocate() }
            for start in 1..<last where moved[start >> 6] & (1 << UInt64(start & 63)) == 0 {
                held.initialize(from: p + start * block, count: block)
                var to = start
                while true {
                    moved[to >> 6] |= 1 << UInt64(to & 63)
                    let from = (to * strips) % last
                    if from == start { break }
                    (p + to * block).update(from: p + from * block, count: block)
                    to = from
                }
                (p + to * block).update(from: held, count: block)
            }
        }
        // Each strip, now an h×64 picture where its 64 transposed rows go, transposed
        // through a copy of it; then the columns set aside, into the last rows.
        nonisolated(unsafe) let p = p
        DispatchQueue.concurrentPerform(iterations: strips) { s in
            let place = p + s * h * block
            let copy = UnsafeMutablePointer<Component>.allocate(capacity: h * block)
            defer { copy.deallocate() }
            copy.initialize(from: place, count: h * block)
            transposed(copy, rows: h, columns: strip, channels: ch, into: place)
        }
        side.withUnsafeBufferPointer { side in
            if rest > 0 { transposed(side.baseAddress!, rows: h, columns: rest, channels: ch, into: p + wide * h * ch) }
        }
    }

    /// The rows×columns picture at `src` written transposed (columns×rows) from `dst` on,
    /// a tile of 64 rows at a time so the reads stay in cache.
    private static func transposed(_ src: UnsafePointer<Component>, rows: Int, columns: Int, channels ch: Int, into dst: UnsafeMutablePointer<Component>) {
        for top in stride(from: 0, to: rows, by: 64) {
            let bottom = Swift.min(rows, top + 64)
            for x in 0..<columns {
                var d = (x * rows + top) * ch
                var s = (top * columns + x) * ch
                for _ in top..<bottom {
                    for c in 0..<ch { dst[d + c] = src[s + c] }
                    d += ch
                    s += columns * ch
                }
            }
        }
    }
}
