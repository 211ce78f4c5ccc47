import CRowLoops
import Foundation
import Imaging

/// The sRGB transfer function (Display P3 shares it): an 8-bit sample's encoded value in
/// 0...1 to linear light and back. Exposure, warmth and tint work in linear light, where a
/// stop of light is a doubling.
enum SRGB {
    static func linear(_ encoded: Double) -> Double {
        encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
    }

    static func encoded(_ linear: Double) -> Double {
        linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }
}

/// A curve per channel over encoded values in 0...1, and its 8-bit tables: what a
/// ``ChannelCurveFilter`` maps each sample through.
struct ToneCurve: Sendable {
    let red: @Sendable (Double) -> Double, green: @Sendable (Double) -> Double, blue: @Sendable (Double) -> Double
    /// 768 entries: red's 256, green's, blue's.
    let bytes: [UInt8]

    init(_ all: @escaping @Sendable (Double) -> Double) {
        self.init(red: all, green: all, blue: all)
    }

    init(red: @escaping @Sendable (Double) -> Double, green: @escaping @Sendable (Double) -> Double, blue: @escaping @Sendable (Double) -> Double) {
        (self.red, self.green, self.blue) = (red, green, blue)
        bytes = [red, green, blue].flatMap { curve in (0..<256).map { clampByte(curve(Double($0) / 255) * 255) } }
    }

    /// The 16-bit tables (3 × 65,536 entries), made when a 16-bit picture asks.
    func sixteenBitTables() -> [UInt16] {
        var tables = [UInt16](repeating: 0, count: 3 * 65536)
        tables.withUnsafeMutableBufferPointer { t in
            nonisolated(unsafe) let t = t
            let curves = [red, green, blue]
            forEachBand(rows: 3 * 16) { parts in
                for part in parts {
                    let (channel, first) = (part / 16, part % 16 * 4096)
                    for v in first..<(first + 4096) { t[channel * 65536 + v] = clampSixteen(curves[channel](Double(v) / 65535) * 65535) }
                }
            }
        }
        return tables
    }
}

/// A filter that maps each channel through a curve of its own (a tone curve, a gain in
/// linear light): every sample is looked up once, so a stack of them costs a pass each.
protocol ChannelCurveFilter: RegionFilter, RegionPlan, SixteenBitFilter {
    var curve: ToneCurve { get }
}

extension ChannelCurveFilter {
    public static var treatsEveryDirectionAlike: Bool { true }
    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan { self }
    public func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { ChannelCurves.map(&pixels, curve.bytes) }
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var out = image
        ChannelCurves.map(&out, curve.bytes)
        return out
    }
    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        ChannelCurves.SixteenBitPlan(curve).draw(&out, x: 0, y: 0)
        return out
    }
    public func sixteenBitPlan(width: Int, height: Int, summary: SmoothedImage?) -> (any SixteenBitRegionPlan)? {
        ChannelCurves.SixteenBitPlan(curve)
    }
}

enum ChannelCurves {
    /// A curve's tables at both depths: its 16-bit ones made once for every region of a
    /// picture (their 196,608 entries cost more than a small region's lookups).
    struct SixteenBitPlan: SixteenBitRegionPlan {
        let bytes: [UInt8]
        let tables: [UInt16]

        init(_ curve: ToneCurve) {
            (bytes, tables) = (curve.bytes, curve.sixteenBitTables())
        }

        func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { ChannelCurves.map(&pixels, bytes) }

        func draw(_ pixels: inout PixelBuffer<UInt16>, x: Int, y: Int) {
            tables.withUnsafeBufferPointer { lut in
                nonisolated(unsafe) let lut = lut
                mapPixels(&pixels) { r, g, b in (lut[Int(r)], lut[65536 + Int(g)], lut[131072 + Int(b)]) }
            }
        }
    }

    /// Every sample of RGB `pixels` through its channel's table (768 entries), in parallel, in place.
    static func map(_ pixels: inout PixelBuffer<UInt8>, _ tables: [UInt8]) {
        precondition(pixels.channels == 3 && tables.count == 768, "filters take RGB")
        let (w, h) = (pixels.width, pixels.height)
        tables.withUnsafeBufferPointer { lut in
            pixels.components.withUnsafeMutableBufferPointer { p in
                nonisolated(unsafe) let (p, lut) = (p, lut)
                forEachBand(rows: h) { rows in
                    camlib_rgb_tables(p.baseAddress! + rows.lowerBound * w * 3, rows.count * w, lut.baseAddress)
                }
            }
        }
    }
}
