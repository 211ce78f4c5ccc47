import Foundation
import Testing

@testable import Filters

struct InkLinesTests {
    /// Lines found on planes of `width`×`height` where `inside` is white and the rest
    /// black, softened once as the comic softens its working picture.
    static func lines(width: Int, height: Int, minimumLength: Int = 5, inside: (Int, Int) -> Bool) -> (lines: [UInt8], soft: FloatPlane) {
        var plane = FloatPlane(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width where inside(x, y) { plane[x, y] = 255 }
        }
        let soft = plane.boxBlurred(radius: 1)
        let ink = InkLines(high: 24, low: 10, minimumLength: minimumLength)
        return (ink.thinLines(red: soft, green: soft, blue: soft), soft)
    }

    /// Straight edges in the four directions the suppression tells apart.
    enum Edge: String, CaseIterable {
        case vertical, horizontal, diagonal45, diagonal135

        func inside(_ x: Int, _ y: Int) -> Bool {
            switch self {
            case .vertical: x >= 20
            case .horizontal: y >= 17
            case .diagonal45: x + y >= 40
            case .diagonal135: x - y >= 3
            }
        }
    }

    /// An edge along each of the four directions the suppression tells apart gives one
    /// line, thin across it, along its whole length: one pixel across an axis edge, and at
    /// most two side by side across a diagonal one (its softened step has two equal
    /// samples across each row, each the largest along the diagonal). A direction taken
    /// for another would keep a wider band across the edge, or nothing.
    @Test(arguments: Edge.allCases)
    func anEdgeInEveryDirectionGivesOneThinLine(edge: Edge) {
        let (w, h) = (41, 37)
        let (lines, _) = Self.lines(width: w, height: h, inside: edge.inside)
        let horizontal = edge == .horizontal
        // Across the edge: along rows for vertical and diagonal edges, along columns for a
        // horizontal one; away from the border, where the gradient is cut.
        var crossed = 0
        for i in 4..<((horizontal ? w : h) - 4) {
            let across = (0..<(horizontal ? h : w)).filter { j in horizontal ? lines[j * w + i] != 0 : lines[i * w + j] != 0 }
            if across.isEmpty, edge == .diagonal45 || edge == .diagonal135 { continue }  // the edge left the picture here
            let diagonal = edge == .diagonal45 || edge == .diagonal135
            #expect(across.count == 1 || diagonal && across.count == 2 && across[1] == across[0] + 1, "\(edge) edge, line \(i): \(across)")
            guard let j = across.first else { continue }
            crossed += 1
            // On the edge: the line pixel is next to where white begins, or on it.
            let (x, y) = horizontal ? (i, j) : (j, i)
            let near = [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1), (x, y)]
            #expect(near.contains { edge.inside($0.0, $0.1) } && near.contains { !edge.inside($0.0, $0.1) }, "\(edge) at \(x),\(y)")
        }
        #expect(crossed >= 20, "\(edge): the line is crossed \(crossed) times")
    }

    /// A plane narrower than a vector's pixels goes the one-at-a-time way, to the same
    /// line: a horizontal edge across it, one pixel thin in every column clear of the sides.
    @Test func aNarrowPlaneFindsItsLinesToo() {
        let (w, h) = (8, 30)
        let (lines, _) = Self.lines(width: w, height: h, minimumLength: 3) { _, y in y >= 12 }
        for x in 2..<(w - 2) {
            let rows = (0..<h).filter { lines[$0 * w + x] != 0 }
            #expect(rows.count == 1 && [11, 12].contains(rows[0]), "column \(x): \(rows)")
        }
    }

    /// A flat picture draws no line, and a fleck's ring is drawn only when the minimum
    /// length allows a line that short.
    @Test func flatPlanesAndShortFlecksDrawNothing() {
        #expect(Self.lines(width: 30, height: 20) { _, _ in false }.lines.allSatisfy { $0 == 0 })
        let fleck = { (x: Int, y: Int) in x == 10 && y == 10 }
        #expect(Self.lines(width: 30, height: 20, minimumLength: 5, inside: fleck).lines.contains { $0 != 0 })
        #expect(Self.lines(width: 30, height: 20, minimumLength: 40, inside: fleck).lines.allSatisfy { $0 == 0 })
    }

    /// The coverage stamped around each line pixel against its definition: half + 0.5 − d,
    /// within 0 ... 1, d the chamfer distance (the longer side of an offset plus √2 − 1 times
    /// the shorter) to the nearest line pixel, found by looking at every one of them; for
    /// half-widths of a 3x3, a 5x5 and a 9x9 stamp, with lines up against the borders.
    @Test(arguments: [0.9, 1.44, 2.0, 3.7] as [Float])
    func coverageIsHalfWidthMinusTheChamferDistance(half: Float) {
        let (w, h) = (33, 29)
        // A disc cut by the right and bottom borders, and a bar along the top one.
        let inside = { (x: Int, y: Int) in
            (x - 26) * (x - 26) + (y - 22) * (y - 22) < 64 || (y < 3 && x > 4 && x < 20)
        }
        let (lines, soft) = Self.lines(width: w, height: h, inside: inside)
        #expect(lines.filter { $0 != 0 }.count > 20)
        let ink = InkLines(high: 24, low: 10, minimumLength: 5)
        let coverage = ink.coverage(red: soft, green: soft, blue: soft, halfWidth: half)
        let onLines = lines.indices.filter { lines[$0] != 0 }
        for y in 0..<h {
            for x in 0..<w {
                let d = onLines.map { i -> Float in
                    let (dx, dy) = (abs(i % w - x), abs(i / w - y))
                    return Float(max(dx, dy)) + (Float(2).squareRoot() - 1) * Float(min(dx, dy))
                }.min()!
                let expected = min(1, max(0, half + 0.5 - d))
                #expect(abs(coverage[x, y] - expected) < 1e-5, "\(x),\(y), half \(half): \(coverage[x, y]) for \(expected)")
            }
        }
    }
}
