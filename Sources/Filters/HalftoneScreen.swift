/// A halftone screen turned 45°: diamond cells whose centres sit on whole pixels, and in
/// each cell a round dot whose area follows the cell's mean darkness.
///
/// The cell pitch is `k·√2` for a whole `k` (the nearest to the asked size), so cell
/// centres fall on pixels `(k·m, k·n)` with `m + n` odd and the pattern repeats every
/// `2k` pixels: a pixel's place in its cell is two counters stepping along a row, with
/// no floating point per pixel. A dot's size comes from the cell's mean luma (a k×k box
/// around its centre), as a printed halftone's does, not from one sample.
struct HalftoneScreen: Sendable {
    /// Half the pattern's period: cell centres are `k` pixels apart along x and y.
    let k: Int
    let width: Int
    let height: Int
    /// Squared dot radius in units of (1/4k)² (twice the pixel grid, so distances are
    /// measured from pixel centres), per cell centre, indexed by
    /// `(n + 1) * columns + m`; the rows run n = -1 ... height/k + 1.
    let thresholds: [Int32]
    let columns: Int
    /// (2i + 1 − 2k)²: twice the distance of place i = 0 ..< 2k (a pixel centre) from the
    /// cell's middle along u or v, squared.
    let squaredDistances: [Int32]

    /// `cell`: the asked cell size in pixels; `luma`: the image's luma, row by row.
    init(cell: Int, luma: [UInt8], width: Int, height: Int) {
        k = max(2, Int((Double(cell) * 0.7071067811865476).rounded()))
        self.width = width
        self.height = height
        columns = width / k + 3
        let rows = height / k + 3
        // Dot radius² (cell units) for each mean luma: area proportional to darkness beyond
        // the lightest 15%, which stays clean paper; then in the screen's integer units.
        let scale = Double(16 * k * k)
        let byLuma: [Int32] = (0..<256).map { y in
            let darkness = 1 - Double(y) / 255
            return Int32((0.62 * 0.62 * max(0, darkness - 0.15) / 0.85 * scale).rounded())
        }
        var thresholds = [Int32](repeating: 0, count: columns * rows)
        let k = k, columns = columns
        let half = k / 2
        luma.withUnsafeBufferPointer { luma in
            thresholds.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                forEachBand(rows: rows) { band in
                    var columnSums = [UInt32](repeating: 0, count: width + 1)
                    for row in band {
                        let cy = (row - 1) * k
                        let top = max(0, cy - half), bottom = min(height, cy - half + k)
                        guard top < bottom else { continue }
                        // Column sums of the box's rows, as a running prefix along x.
                        for x in 0..<width { columnSums[x + 1] = 0 }
                        for yy in top..<bottom {
                            let base = yy * width
                            for x in 0..<width { columnSums[x + 1] &+= UInt32(luma[base + x]) }
                        }
                        for x in 0..<width { columnSums[x + 1] &+= columnSums[x] }
                        for m in 0..<columns {
                            let cx = m * k
                            let left = max(0, cx - half), right = min(width, cx - half + k)
                            guard left < right else { continue }
                            let mean = (columnSums[right] - columnSums[left]) / UInt32((right - left) * (bottom - top))
                            out[row * columns + m] = byLuma[Int(mean)]
                        }
                    }
                }
            }
        }
        self.thresholds = thresholds
        squaredDistances = (0..<(2 * k)).map { Int32((2 * $0 + 1 - 2 * k) * (2 * $0 + 1 - 2 * k)) }
    }

    /// Row y of the screen: `dots[x]` is 1 where a dot covers pixel x, 0 elsewhere.
    func dots(inRow y: Int, into dots: UnsafeMutablePointer<UInt8>) {
        thresholds.withUnsafeBufferPointer { thresholds in
            squaredDistances.withUnsafeBufferPointer { squares in
                let period = 2 * k
                // u·2k = x + y and v·2k = x − y: the cell is (⌊u⌋, ⌊v⌋), the place in it
                // the remainders su, sv; its centre is m = ⌊u⌋ + ⌊v⌋ + 1, n = ⌊u⌋ − ⌊v⌋.
                var cu = y / period, su = y % period
                var cv = -((y + period - 1) / period)
                var sv = -y - cv * period
                var x = 0
                while x < width {
                    // One run: the pixels up to the next cell boundary share a centre.
                    let n = min(height / k + 1, max(-1, cu - cv)), m = min(columns - 1, max(0, cu + cv + 1))
                    let limit = thresholds[(n + 1) * columns + m]
                    let run = min(width - x, period - max(su, sv))
                    let du = squares.baseAddress! + su, dv = squares.baseAddress! + sv, out = dots + x
                    for i in 0..<run { out[i] = du[i] &+ dv[i] < limit ? 1 : 0 }
                    x += run
                    su += run
                    sv += run
                    if su == period { (su, cu) = (0, cu + 1) }
                    if sv == period { (sv, cv) = (0, cv + 1) }
                }
            }
        }
    }
}
