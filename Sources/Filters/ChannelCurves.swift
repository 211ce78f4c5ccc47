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

    /// The 256 samples' linear values.
    static let linearTable: [Double] = (0..<256).map { linear(Double($0) / 255) }
}

/// A filter that maps each channel through a table of its own (a tone curve, a gain in
/// linear light): every sample is looked up once, so a stack of them costs a pass each.
protocol ChannelCurveFilter: RegionFilter, RegionPlan {
    /// 768 entries: red's 256, green's, blue's.
    var tables: [UInt8] { get }
}

extension ChannelCurveFilter {
    public static var treatsEveryDirectionAlike: Bool { true }
    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan { self }
    public func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { ChannelCurves.map(&pixels, tables) }
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var out = image
        ChannelCurves.map(&out, tables)
        return out
    }
}

enum ChannelCurves {
    /// One table for all three channels, from a curve over 0...1.
    static func tables(_ curve: (Double) -> Double) -> [UInt8] {
        let one = (0..<256).map { clampByte(curve(Double($0) / 255) * 255) }
        return one + one + one
    }

    /// Every sample of RGB `pixels` through its channel's table, in parallel, in place.
    static func map(_ pixels: inout PixelBuffer<UInt8>, _ tables: [UInt8]) {
        precondition(pixels.channels == 3 && tables.count == 768, "filters take RGB")
        let (w, h) = (pixels.width, pixels.height)
        tables.withUnsafeBufferPointer { lut in
            pixels.components.withUnsafeMutableBufferPointer { p in
                nonisolated(unsafe) let (p, lut) = (p, lut)
                forEachBand(rows: h) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        p[i * 3] = lut[Int(p[i * 3])]
                        p[i * 3 + 1] = lut[256 + Int(p[i * 3 + 1])]
                        p[i * 3 + 2] = lut[512 + Int(p[i * 3 + 2])]
                    }
                }
            }
        }
    }
}
