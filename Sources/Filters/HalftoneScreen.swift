/// A halftone screen turned 45°: diamond cells whose centres sit on whole pixels, and in
/// each cell a round dot whose area follows the darkness around the cell's centre.
///
/// The cell pitch is `k·√2` for a whole `k` (the nearest to the asked size), so cell
/// centres fall on pixels `(k·m, k·n)` with `m + n` odd and the pattern repeats every
/// `2k` pixels: a pixel's place in its cell is two counters stepping along a row. Dots
/// have soft sides an eighth of a cell wide (a pixel on a dot's rim is covered in part),
/// which looks like ink on paper at every size and costs an encoder far fewer bits (and
/// x265 less time) than hard-edged dots. The screen is fixed to the picture's grid and a
/// dot's size comes from a softened picture (`luma`), not from single pixels, so the frames of
/// a movie get the same dots where their content is the same: no shimmer.
struct HalftoneScreen: Sendable {
    /// Half the pattern's period: cell centres are `k` pixels apart along x and y.
    let k: Int
    let width: Int
    let height: Int
    /// Dot radius in rims, plus half a rim (coverage falls from 1 to 0 over one rim
    /// around the radius), per cell centre, indexed by `(n + 1) * columns + m`; the rows
    /// run n = -1 ... height/k + 1.
    let radii: [Float]
    /// 1 / (√8 · rim): turns the root of a pixel's two squared place distances into rims. The rim is an
    /// eighth of the cell (at least a pixel), so a dot looks the same at every size, and
    /// its soft edge costs an encoder far fewer bits than a hard one.
    let rimsPerRootUnit: Float
    let columns: Int
    /// A pixel's distance from its dot's centre in rims, by its place (su, sv) in the cell
    /// (0 ..< 2k each), at `su · 2k + sv`: looked up, not computed with a square root per
    /// pixel. From (2i + 1 − 2k)², twice the distance of place i from the cell's middle
    /// along u or v, squared; the two of a pixel add up to 8 × its squared distance.
    let rimDistances: [Float]
    /// The darkness of the lightest tones, which stay clean paper, and the dot radius of
    /// full black (in cells).
    static let paper = 0.2, blackRadius = 0.62

    /// `cell`: the asked cell size in pixels; `luma(x, y)`: the softened luma (0 ... 255)
    /// at a full-size pixel.
    init(cell: Int, width: Int, height: Int, luma: (Int, Int) -> Float) {
        k = max(2, Int((Double(cell) * 0.7071067811865476).rounded()))
        self.width = width
        self.height = height
        columns = width / k + 3
        let rows = height / k + 3
        // Dot radius for each luma: area proportional to darkness beyond the paper's; in
        // rims (a cell is k·√2 pixels wide), plus the half rim where coverage is a half.
        let pitch = Double(k) * 2.0.squareRoot()
        let rim = max(1, pitch / 8)
        rimsPerRootUnit = Float(1 / (8.0.squareRoot() * rim))
        let byLuma: [Float] = (0..<256).map { y in
            let darkness = 1 - Double(y) / 255
            let area = Self.blackRadius * Self.blackRadius * max(0, darkness - Self.paper) / (1 - Self.paper)
            return area > 0 ? Float(area.squareRoot() * pitch / rim + 0.5) : 0
        }
        var radii = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            let cy = min(height - 1, max(0, (row - 1) * k))
            for m in 0..<columns {
                let cx = min(width - 1, max(0, m * k))
                let y = Int(max(0, min(255, luma(cx, cy).rounded())))
                radii[row * columns + m] = byLuma[y]
            }
        }
        self.radii = radii
        let k = k, period = 2 * k
        let squares = (0..<period).map { Int32((2 * $0 + 1 - 2 * k) * (2 * $0 + 1 - 2 * k)) }
        var rimDistances = [Float](repeating: 0, count: period * period)
        for su in 0..<period {
            for sv in 0..<period { rimDistances[su * period + sv] = Float(squares[su] &+ squares[sv]).squareRoot() * rimsPerRootUnit }
        }
        self.rimDistances = rimDistances
    }

    /// Row y of the screen, columns `x ..< x + count` (the whole row by default):
    /// `dots[i]` is how much of pixel x + i a dot covers, 0 ... 1.
    func dots(inRow y: Int, x start: Int = 0, count: Int? = nil, into dots: UnsafeMutablePointer<Float>) {
        let end = start + (count ?? width - start)
        radii.withUnsafeBufferPointer { radii in
            rimDistances.withUnsafeBufferPointer { rims in
                let period = 2 * k
                // u·2k = x + y and v·2k = x − y: the cell is (⌊u⌋, ⌊v⌋), the place in it
                // the remainders su, sv; its centre is m = ⌊u⌋ + ⌊v⌋ + 1, n = ⌊u⌋ − ⌊v⌋.
                var cu = (start + y) / period, su = (start + y) % period
                let v = start - y
                var cv = v >= 0 ? v / period : -((-v + period - 1) / period)  // ⌊v / 2k⌋
                var sv = v - cv * period
                var x = start
                while x < end {
                    // One run: the pixels up to the next cell boundary share a centre.
                    let n = min(height / k + 1, max(-1, cu - cv)), m = min(columns - 1, max(0, cu + cv + 1))
                    let radius = radii[(n + 1) * columns + m]
                    let run = min(end - x, period - max(su, sv))
                    // Along a row both places step by one: the table's diagonal.
                    let distances = rims.baseAddress! + su * period + sv, out = dots + (x - start)
                    if radius == 0 {
                        for i in 0..<run { out[i] = 0 }
                    } else {
                        for i in 0..<run { out[i] = min(1, max(0, radius - distances[i * (period + 1)])) }
                    }
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
