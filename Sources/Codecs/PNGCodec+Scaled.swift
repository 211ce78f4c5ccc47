#if canImport(Glibc)
import Glibc
#endif
import Imaging

extension PNGCodec {
    /// A PNG decoded to 8-bit RGB, transparency on white, and scaled to fit `maxSide`: the
    /// picture ``decodeRGB(_:)`` and ``PixelScaler/scaledToFit(_:maxSide:)`` give. A
    /// non-interlaced PNG of more than `bandedAbove` pixels is read a band of rows at a
    /// time and never held whole (a 200-megapixel one is 600 MB at 8 bits); its samples
    /// are corrected for a gAMA chunk as libpng's simplified API corrects them.
    public static func decodeScaled(_ png: [UInt8], maxSide: Int, bandedAbove: Int = PixelScaler.bandedAbovePixels) throws -> PixelBuffer<UInt8> {
        // IHDR comes first: its width, height and interlace method.
        func u32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        guard png.count > 33, png[12..<16].elementsEqual("IHDR".utf8), u32(16) * u32(20) > bandedAbove, png[28] == 0 else {
            return try PixelScaler.scaledToFit(decodeRGB(png), maxSide: maxSide)
        }
        let format = try rowFormat(png)
        let bands = try PixelScaler.Bands(width: format.width, height: format.height, channels: 3, maxSide: maxSide)
        let band = 128
        let gamma = format.correctedGamma
        if format.bitDepth == 16 {
            let tables = gamma.map { Tables(levels: 65536, gamma: $0) } ?? .sixteen
            try readRows(png, band: band) { (format, rows: PixelBuffer<UInt16>, _) in
                bands.add(flattened(rows, channels: format.channels, tables: tables))
            }
        } else if format.channels == 3, gamma == nil {
            try readRows(png, band: band) { (_, rows: PixelBuffer<UInt8>, _) in bands.add(rows) }
        } else {
            let tables = gamma.map { Tables(levels: 256, gamma: $0) } ?? .eight
            try readRows(png, band: band) { (format, rows: PixelBuffer<UInt8>, _) in
                bands.add(flattened(rows, channels: format.channels, tables: tables))
            }
        }
        return try bands.finish()
    }

    /// What each sample value of a PNG's depth becomes: the 8-bit sRGB value of an opaque
    /// sample, and the light of any (0 to 1), to lay it on white by its alpha.
    private struct Tables {
        var opaque: [UInt8]
        var linear: [Float]

        /// For samples encoded with `gamma` (light is the sample to the power 1/`gamma`),
        /// or as sRGB when nil.
        init(levels: Int, gamma: Double?) {
            let top = Double(levels - 1)
            if let gamma {
                opaque = PNGCodec.sRGBLevels(levels: levels, gamma: gamma)
                linear = (0..<levels).map { Float(pow(Double($0) / top, 1 / gamma)) }
            } else {
                let half = (levels - 1) / 2
                opaque = (0..<levels).map { UInt8(($0 * 255 + half) / (levels - 1)) }
                linear = (0..<levels).map { PNGCodec.linearLight(Float(Double($0) / top)) }
            }
        }

        static let eight = Tables(levels: 256, gamma: nil)
        static let sixteen = Tables(levels: 65536, gamma: nil)
    }

    /// Rows of gray, gray and alpha, RGB or RGBA samples as 8-bit RGB, laid on white in
    /// linear light as libpng's simplified API lays them.
    private static func flattened<T: PixelComponent & FixedWidthInteger>(
        _ rows: borrowing PixelBuffer<T>, channels ch: Int, tables: Tables
    ) -> PixelBuffer<UInt8> {
        let gray = ch <= 2, alpha = ch == 2 || ch == 4, count = rows.width * rows.height
        let top = Int(T.max)
        return rows.components.withUnsafeBufferPointer { source in
            tables.linear.withUnsafeBufferPointer { linear in
                tables.opaque.withUnsafeBufferPointer { opaque in
                    sRGBOfLinear.withUnsafeBufferPointer { encode in
                        PixelBuffer<UInt8>(width: rows.width, height: rows.height, channels: 3) { out in
                            for i in 0..<count {
                                let a = alpha ? Int(source[i * ch + ch - 1]) : top
                                for c in 0..<3 {
                                    let v = Int(source[i * ch + (gray ? 0 : c)])
                                    if a == top {
                                        out[i * 3 + c] = opaque[v]
                                    } else {
                                        let share = Float(a) / Float(top)
                                        let light = linear[v] * share + (1 - share)
                                        out[i * 3 + c] = encode[Int(light * Float(encode.count - 1) + 0.5)]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fileprivate static func linearLight(_ v: Float) -> Float { v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4) }
    /// 8-bit sRGB of linear light at 65,536 steps.
    private static let sRGBOfLinear: [UInt8] = (0..<65536).map {
        let l = Float($0) / 65535
        let v = l <= 0.003_130_8 ? l * 12.92 : 1.055 * powf(l, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (v * 255).rounded())))
    }
}
