/// The comic filter's ink lines: 1 where the Sobel gradient (|gx| + |gy|, at most 2040)
/// of the 3x3-box-smoothed luma exceeds `threshold`, dilated to a `lineWidth` square.
///
/// Computed band by band from rolling rows (box sums, then the separable Sobel's row
/// differences and row smoothings), so the smoothed image and the gradients never exist
/// as whole planes: a 24-megapixel still needs a few rows of scratch per core, and the
/// inner loops are plain arithmetic over rows that the compiler vectorises.
struct OutlineMask {
    let threshold: Int32
    let lineWidth: Int

    func mask(luma: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        let before = (lineWidth - 1) / 2, after = max(0, lineWidth - 1 - before)
        // Pass 1: edges, widened along each row. Pass 2: widened along columns.
        var rowsWide = [UInt8](repeating: 0, count: w * h)
        luma.withUnsafeBufferPointer { luma in
            rowsWide.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                forEachBand(rows: h) { band in
                    var rows = Rows(luma: luma.baseAddress!, width: w, height: h)
                    var edge = [UInt8](repeating: 0, count: w)
                    for y in band where y > 0 && y < h - 1 {
                        rows.edges(ofRow: y, threshold: threshold, into: &edge)
                        let dst = out.baseAddress! + y * w
                        // dst[x] = any edge in x − after ... x + before.
                        edge.withUnsafeBufferPointer { edge in
                            for o in -after...before {
                                for x in max(0, -o)..<min(w, w - o) { dst[x] |= edge[x + o] }
                            }
                        }
                    }
                }
            }
        }
        guard before + after > 0 else { return rowsWide }
        var out = [UInt8](repeating: 0, count: w * h)
        rowsWide.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: h) { band in
                    for y in band {
                        let row = dst.baseAddress! + y * w
                        for yy in max(0, y - after)...min(h - 1, y + before) {
                            let other = src.baseAddress! + yy * w
                            for x in 0..<w { row[x] |= other[x] }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Rolling rows of one band: box sums along rows, smoothed rows, and each smoothed
    /// row's Sobel terms, each kept for the last three rows asked (slot = row mod 3).
    struct Rows {
        let luma: UnsafePointer<UInt8>
        let width: Int
        let height: Int
        var rowSums: [[UInt16]]
        var rowSumOf = [-1, -1, -1]
        /// Per smoothed row: right − left neighbour, and left + 2·centre + right.
        var difference: [[Int16]]
        var smoothing: [[Int16]]
        var termsOf = [-1, -1, -1]
        var smoothed: [UInt8]

        init(luma: UnsafePointer<UInt8>, width: Int, height: Int) {
            self.luma = luma
            self.width = width
            self.height = height
            rowSums = Array(repeating: [UInt16](repeating: 0, count: width), count: 3)
            difference = Array(repeating: [Int16](repeating: 0, count: width), count: 3)
            smoothing = difference
            smoothed = [UInt8](repeating: 0, count: width)
        }

        /// Edge flags (0 or 1) of row y, 0 < y < height − 1; the first and last column are 0.
        mutating func edges(ofRow y: Int, threshold: Int32, into edge: inout [UInt8]) {
            let a = terms(y - 1), b = terms(y), c = terms(y + 1)
            let w = width
            difference[a].withUnsafeBufferPointer { da in
                difference[b].withUnsafeBufferPointer { db in
                    difference[c].withUnsafeBufferPointer { dc in
                        smoothing[a].withUnsafeBufferPointer { sa in
                            smoothing[c].withUnsafeBufferPointer { sc in
                                edge.withUnsafeMutableBufferPointer { e in
                                    e[0] = 0
                                    e[w - 1] = 0
                                    for x in 1..<(w - 1) {
                                        let gx = Int32(da[x]) &+ 2 &* Int32(db[x]) &+ Int32(dc[x])
                                        let gy = Int32(sc[x]) &- Int32(sa[x])
                                        e[x] = abs(gx) &+ abs(gy) > threshold ? 1 : 0
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The slot holding the Sobel terms of smoothed row r.
        mutating func terms(_ r: Int) -> Int {
            let slot = r % 3
            guard termsOf[slot] != r else { return slot }
            smooth(r)
            let w = width
            smoothed.withUnsafeBufferPointer { s in
                difference[slot].withUnsafeMutableBufferPointer { d in
                    smoothing[slot].withUnsafeMutableBufferPointer { m in
                        for x in 1..<(w - 1) {
                            d[x] = Int16(s[x + 1]) &- Int16(s[x - 1])
                            m[x] = Int16(s[x - 1]) &+ 2 &* Int16(s[x]) &+ Int16(s[x + 1])
                        }
                    }
                }
            }
            termsOf[slot] = r
            return slot
        }

        /// Row r of the 3x3 box average, neighbours beyond the edges clamped.
        mutating func smooth(_ r: Int) {
            let a = sums(max(0, r - 1)), b = sums(r), c = sums(min(height - 1, r + 1))
            let w = width
            rowSums[a].withUnsafeBufferPointer { sa in
                rowSums[b].withUnsafeBufferPointer { sb in
                    rowSums[c].withUnsafeBufferPointer { sc in
                        smoothed.withUnsafeMutableBufferPointer { out in
                            for x in 0..<w {
                                let sum = UInt32(sa[x]) &+ UInt32(sb[x]) &+ UInt32(sc[x])
                                out[x] = UInt8(truncatingIfNeeded: (sum &* 7282 &+ 32768) >> 16)  // ÷ 9
                            }
                        }
                    }
                }
            }
        }

        /// The slot holding row r's sums of three neighbours along x, edges clamped.
        mutating func sums(_ r: Int) -> Int {
            let slot = r % 3
            guard rowSumOf[slot] != r else { return slot }
            let w = width
            let src = luma + r * w
            rowSums[slot].withUnsafeMutableBufferPointer { out in
                out[0] = 2 &* UInt16(src[0]) &+ UInt16(src[min(1, w - 1)])
                out[w - 1] = UInt16(src[max(0, w - 2)]) &+ 2 &* UInt16(src[w - 1])
                for x in 1..<(w - 1) { out[x] = UInt16(src[x - 1]) &+ UInt16(src[x]) &+ UInt16(src[x + 1]) }
            }
            rowSumOf[slot] = r
            return slot
        }
    }
}
