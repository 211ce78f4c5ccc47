import Testing

@testable import Filters

struct FloatPlaneTests {
    /// The box blur against its definition, the (2r+1)² mean with edges clamped, on sizes
    /// narrower than the radius, around the vector width and beyond it: every sample of
    /// the planes it writes without filling them first must be written.
    @Test(arguments: [(1, 1, 2), (3, 2, 4), (7, 5, 1), (8, 9, 3), (17, 11, 2), (40, 23, 6)])
    func boxBlurIsTheClampedMean(width: Int, height: Int, radius: Int) {
        var random = SystemRandomNumberGenerator()
        var plane = FloatPlane(width: width, height: height)
        for i in plane.values.indices { plane.values[i] = Float.random(in: 0...255, using: &random) }
        let blurred = plane.boxBlurred(radius: radius)
        let taps = Float((2 * radius + 1) * (2 * radius + 1))
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for dy in -radius...radius {
                    for dx in -radius...radius {
                        sum += plane[min(width - 1, max(0, x + dx)), min(height - 1, max(0, y + dy))]
                    }
                }
                #expect(abs(blurred[x, y] - sum / taps) < 0.01, "\(x),\(y) of \(width)x\(height), radius \(radius)")
            }
        }
    }

    @Test func aPlaneWrittenEverywhereHoldsWhatWasWritten() {
        let plane = FloatPlane(width: 5, height: 3) { p in
            for i in 0..<15 { p[i] = Float(i) }
        }
        #expect(plane.values == (0..<15).map(Float.init))
        #expect(FloatPlane(width: 0, height: 4) { _ in Issue.record("nothing to write") }.values.isEmpty)
    }

    @Test func threePlanesWrittenTogetherHoldWhatWasWritten() {
        let (a, b, c) = FloatPlane.three(width: 4, height: 3) { a, b, c in
            for i in 0..<12 { (a[i], b[i], c[i]) = (Float(i), Float(-i), Float(2 * i)) }
        }
        #expect(a.values == (0..<12).map(Float.init) && b.values == (0..<12).map { Float(-$0) } && c.values == (0..<12).map { Float(2 * $0) })
        #expect([a.width, a.height, c.width, c.height] == [4, 3, 4, 3])
        let empty = FloatPlane.three(width: 0, height: 5) { _, _, _ in Issue.record("nothing to write") }
        #expect(empty.0.values.isEmpty && empty.2.values.isEmpty)
    }
}
