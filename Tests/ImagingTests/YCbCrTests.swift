import Testing

@testable import Imaging

/// A 4:2:0 picture halved to RGB: luma averaged 2x2, its chroma sample kept, the
/// picture's matrix (BT.709 or BT.601) applied at the levels it declares.
struct YCbCrTests {
    /// Planes of `width`×`height` luma with every 2x2 block `luma(x, y)` (in block
    /// units) and the block's chroma.
    static func halved(
        width: Int, height: Int, fullRange: Bool, matrix: YCbCrMatrix = .bt709, luma: (Int, Int, Int, Int) -> UInt8,
        chroma: (Int, Int) -> (UInt8, UInt8)
    ) -> PixelBuffer<UInt8>? {
        // Strides wider than the rows, as decoders pad them.
        let lumaStride = width + 32, chromaStride = width / 2 + 16
        var y = [UInt8](repeating: 0, count: lumaStride * height)
        var cb = [UInt8](repeating: 0, count: chromaStride * (height / 2)), cr = cb
        for row in 0..<height {
            for column in 0..<width { y[row * lumaStride + column] = luma(column / 2, row / 2, column % 2, row % 2) }
        }
        for row in 0..<(height / 2) {
            for column in 0..<(width / 2) {
                (cb[row * chromaStride + column], cr[row * chromaStride + column]) = chroma(column, row)
            }
        }
        return y.withUnsafeMutableBufferPointer { y in
            cb.withUnsafeMutableBufferPointer { cb in
                cr.withUnsafeMutableBufferPointer { cr in
                    PixelBuffer<UInt8>.halvedRGB(
                        YCbCr420Planes(
                            luma: y.baseAddress!, lumaStride: lumaStride, cb: cb.baseAddress!, cr: cr.baseAddress!, chromaStride: chromaStride,
                            width: width, height: height, fullRange: fullRange, matrix: matrix))
                }
            }
        }
    }

    /// R'G'B' from Y'CbCr in 0 ... 1 and ±0.5: BT.709's inverse (Rec. 709 table 3.5) or
    /// BT.601's (JFIF's).
    static func rgb(_ y: Double, _ cb: Double, _ cr: Double, bt601: Bool) -> [Double] {
        let rgb = bt601
            ? [y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb]
            : [y + 1.5748 * cr, y - 0.187324 * cb - 0.468124 * cr, y + 1.8556 * cb]
        return rgb.map { min(255, max(0, $0 * 255)) }
    }

    // 36 pixels wide, no multiple of a vector: the loop's vector part and its rest both run.
    @Test(arguments: [false, true], [false, true])
    func eachPixelIsItsBlocksMeanThroughTheMatrix(fullRange: Bool, bt601: Bool) throws {
        let (width, height) = (72, 6)
        let luma = { (bx: Int, by: Int, dx: Int, dy: Int) -> UInt8 in UInt8(16 + (bx * 5 + by * 17) % 200 + dx * 3 + dy * 6) }
        let chroma = { (bx: Int, by: Int) -> (UInt8, UInt8) in (UInt8(16 + (bx * 11) % 224), UInt8(16 + (bx * 7 + by * 13) % 224)) }
        let out = try #require(
            Self.halved(width: width, height: height, fullRange: fullRange, matrix: bt601 ? .bt601 : .bt709, luma: luma, chroma: chroma))
        #expect((out.width, out.height, out.channels) == (36, 3, 3))
        for by in 0..<3 {
            for bx in 0..<36 {
                let mean = Double([(0, 0), (1, 0), (0, 1), (1, 1)].map { Int(luma(bx, by, $0.0, $0.1)) }.reduce(0, +)) / 4
                let (cb, cr) = chroma(bx, by)
                let y = fullRange ? mean / 255 : (mean - 16) / 219
                let scale = fullRange ? 255.0 : 224.0
                let expected = Self.rgb(y, (Double(cb) - 128) / scale, (Double(cr) - 128) / scale, bt601: bt601)
                for c in 0..<3 {
                    let got = Double(out.components[(by * 36 + bx) * 3 + c])
                    #expect(abs(got - expected[c]) <= 0.51, "block \(bx),\(by) channel \(c): \(got), expected \(expected[c])")
                }
            }
        }
    }

    @Test func videoLevelsSpanTheWholeRange() throws {
        let black = try #require(Self.halved(width: 16, height: 2, fullRange: false, luma: { _, _, _, _ in 16 }, chroma: { _, _ in (128, 128) }))
        let white = try #require(Self.halved(width: 16, height: 2, fullRange: false, luma: { _, _, _, _ in 235 }, chroma: { _, _ in (128, 128) }))
        #expect(black.components.allSatisfy { $0 == 0 } && white.components.allSatisfy { $0 == 255 })
    }

    @Test func oddSidesAreLeftToTheScaler() {
        #expect(Self.halved(width: 15, height: 4, fullRange: false, luma: { _, _, _, _ in 0 }, chroma: { _, _ in (0, 0) }) == nil)
        #expect(Self.halved(width: 16, height: 3, fullRange: false, luma: { _, _, _, _ in 0 }, chroma: { _, _ in (0, 0) }) == nil)
    }
}
