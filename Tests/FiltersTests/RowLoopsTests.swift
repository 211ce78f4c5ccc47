import CRowLoops
import Testing

/// `CRowLoops`' rounding to bytes (adding 1.5·2²³ leaves a float rounded in the low bits
/// of its mantissa) and clamping, through the loops that use them.
struct RowLoopsTests {
    /// Every quarter step of 0 ... 255 and the values either side of each half: the
    /// trick agrees with rounding to nearest, ties to even.
    @Test func roundsLikeTheStandardLibrary() {
        var values: [Float] = stride(from: 0, through: 255, by: 0.25).map { $0 }
        for whole in 0..<255 {
            let half = Float(whole) + 0.5
            values += [half.nextDown, half.nextUp]
        }
        var rgb = [UInt8](repeating: 0, count: values.count * 3)
        camlib_comic_bytes(values, values, values, values.count, &rgb)
        for (i, v) in values.enumerated() {
            let expected = UInt8(v.rounded(.toNearestOrEven))
            #expect(rgb[3 * i] == expected && rgb[3 * i + 1] == expected && rgb[3 * i + 2] == expected, "\(v)")
        }
    }

    /// Colours beyond 0 ... 255 are clamped, not wrapped: full-range Y'CbCr (BT.709)
    /// whose red and blue fall outside, halved.
    @Test func clampsWhatLiesOutside() {
        // Two output pixels: white luma with the most red chroma, black with the least.
        let above: [UInt8] = [255, 255, 0, 0], below = above
        let cb: [UInt8] = [255, 0], cr: [UInt8] = [255, 0]
        var rgb = [UInt8](repeating: 7, count: 6)
        let (kr, kb): (Float, Float) = (0.2126, 0.0722)
        let kg = 1 - kr - kb
        let (crSpan, cbSpan) = (2 * (1 - kr), 2 * (1 - kb))
        camlib_rows_halved_rgb(above, below, cb, cr, 2, 1, 0, crSpan, -kb * cbSpan / kg, -kr * crSpan / kg, cbSpan, &rgb)
        #expect(rgb[0] == 255 && rgb[2] == 255, "\(rgb)")
        #expect(rgb[3] == 0 && rgb[5] == 0, "\(rgb)")
    }
}
