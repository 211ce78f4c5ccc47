import Imaging
import Testing

/// Lane-by-lane clamps through one minimum and one maximum instruction.
struct SIMDClampedTests {
    @Test func eachLaneIsClampedToItsOwnBounds() {
        let v = SIMD8<Float>(-3, 0, 0.5, 1, 7, -.infinity, .infinity, 2)
        let low = SIMD8<Float>(0, 0, 0, 0, 0, -1, -1, 3), high = SIMD8<Float>(1, 1, 1, 1, 5, 1, 1, 4)
        #expect(v.clamped(low, high) == SIMD8(0, 0, 0.5, 1, 5, -1, 1, 3))
        #expect(v.clamped(0, 1) == SIMD8(0, 0, 0.5, 1, 1, 0, 1, 1))
        #expect(SIMD4<Float>(-1, 300, 12.5, 255).clamped(0, 255) == SIMD4(0, 255, 12.5, 255))
    }

    /// A lane that is not a number comes out as the lower bound, never as NaN.
    @Test func notANumberBecomesTheLowerBound() {
        let clamped = SIMD8<Float>(.nan, 1, .nan, 2, 3, .nan, 4, 5).clamped(0, 255)
        #expect(clamped == SIMD8(0, 1, 0, 2, 3, 0, 4, 5))
    }

    /// Magnitudes lane by lane, a negative zero's included (its sign bit cleared).
    @Test func magnitudesAreEachLanesAbsoluteValue() {
        let v = SIMD8<Float>(-3, 0, -0.0, 1.5, -.infinity, 7, -2.25, 1e-30)
        #expect(v.magnitudes == SIMD8(3, 0, 0, 1.5, .infinity, 7, 2.25, 1e-30))
        #expect(v.magnitudes[2].sign == .plus)
        #expect(SIMD4<Float>(-1, 2, -3, 4).magnitudes == SIMD4(1, 2, 3, 4))
    }
}
