import Imaging
import Testing

struct NearestByteTests {
    /// Every quarter step of 0 ... 255 and the values either side of each half: the
    /// trick agrees with rounding to nearest, ties to even, in every width it comes in.
    @Test func roundsLikeTheStandardLibrary() {
        var values: [Float] = stride(from: 0, through: 255, by: 0.25).map { $0 }
        for whole in 0..<255 {
            let half = Float(whole) + 0.5
            values += [half.nextDown, half.nextUp]
        }
        for v in values {
            let expected = UInt8(v.rounded(.toNearestOrEven))
            #expect(NearestByte.byte(v) == expected, "\(v)")
            #expect(UInt8(truncatingIfNeeded: NearestByte.words(SIMD8(repeating: v))[3]) == expected, "\(v)")
            #expect(NearestByte.bytes(clamping: SIMD4(repeating: v))[1] == expected, "\(v)")
            #expect(((v + NearestByte.rounder) - NearestByte.rounder) == v.rounded(.toNearestOrEven), "\(v)")
        }
    }

    @Test func clampsWhatLiesOutside() {
        let v = SIMD8<Float>(-300, -0.6, -0.4, 255.4, 255.6, 1000, 0, 128.5)
        #expect(SIMD8<UInt8>(truncatingIfNeeded: NearestByte.words(clamping: v)) == SIMD8(0, 0, 0, 255, 255, 255, 0, 128))
        #expect(NearestByte.bytes(clamping: SIMD4(-1, 256, 12.5, 13.5)) == SIMD4(0, 255, 12, 14))
    }
}
