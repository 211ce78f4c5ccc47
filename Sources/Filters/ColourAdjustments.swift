import Foundation
import Imaging

// Colour: white balance (warmth, tint) as gains in linear light, as a camera's white
// balance is; saturation and vibrance as distances from each pixel's Rec. 709 luma. At 0
// each is the identity, byte for byte.

/// Warmth: warmer (more red, less blue) or cooler, as a white balance shift.
public struct WarmthFilter: ChannelCurveFilter {
    public static let name = "warmth"
    public static let summary = "warmer (towards amber) or cooler (towards blue), as white balance"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1: red up, blue down 0.4 stop; -1: cooler")
    ]
    let curve: ToneCurve

    public init(parameters: [String: Double]) {
        let a = parameters["amount"] ?? 0
        curve = WhiteBalance.curve(red: pow(2, 0.4 * a), green: 1, blue: pow(2, -0.4 * a))
    }
}

/// Tint: towards magenta or towards green, the other axis of white balance.
public struct TintFilter: ChannelCurveFilter {
    public static let name = "tint"
    public static let summary = "towards magenta (positive) or green (negative), as white balance"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1: green down by 0.4 stop; -1: green up")
    ]
    let curve: ToneCurve

    public init(parameters: [String: Double]) {
        let a = parameters["amount"] ?? 0
        curve = WhiteBalance.curve(red: 1, green: pow(2, -0.4 * a), blue: 1)
    }
}

enum WhiteBalance {
    /// Per-channel gains in linear light, clipped at white.
    static func curve(red: Double, green: Double, blue: Double) -> ToneCurve {
        func gained(_ gain: Double) -> @Sendable (Double) -> Double { { SRGB.encoded(min(1, SRGB.linear($0) * gain)) } }
        return ToneCurve(red: gained(red), green: gained(green), blue: gained(blue))
    }
}

/// Saturation: every colour further from (or nearer to) its gray.
public struct SaturationFilter: PixelFilter, SixteenBitFilter, SixteenBitRegionPlan {
    public static let name = "saturation"
    public static let summary = "more or less colour; -1 is gray"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1 doubles each colour's strength; -1 is gray")
    ]
    /// 1 + amount, in 1/256.
    let factor: Int32

    public init(parameters: [String: Double]) {
        factor = Int32(((1 + (parameters["amount"] ?? 0)) * 256).rounded())
    }

    public func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        Chroma.scaled(r, g, b, by: factor)
    }

    // 8-bit pictures in C (`camlib_rgb_chroma_scaled`, the same arithmetic, in vector
    // registers): a Live Photo movie's saturation took 12% of its edit through `transform`.
    public func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { pixels = ColourPass(self).apply(to: pixels) }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> { ColourPass(self).apply(to: image) }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        let factor = factor
        mapPixels(&out) { r, g, b in Chroma.scaled(r, g, b, by: factor) }
        return out
    }
}

/// Vibrance: muted colours saturated more than vivid ones, so skies and foliage gain
/// colour before anything garish does.
public struct VibranceFilter: PixelFilter, SixteenBitFilter, SixteenBitRegionPlan {
    public static let name = "vibrance"
    public static let summary = "saturation that spares colours already vivid"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1 doubles a muted colour, a vivid one barely")
    ]
    /// amount, in 1/256.
    let amount: Int32

    public init(parameters: [String: Double]) {
        amount = Int32(((parameters["amount"] ?? 0) * 256).rounded())
    }

    public func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) { vibrant(r, g, b) }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        guard amount != 0 else { return out }
        mapPixels(&out) { r, g, b in vibrant(r, g, b) }
        return out
    }

    @inline(__always)
    func vibrant<T: FixedWidthInteger & UnsignedInteger>(_ r: T, _ g: T, _ b: T) -> (T, T, T) {
        let high = Int64(max(r, max(g, b))), low = Int64(min(r, min(g, b)))
        guard high > 0, amount != 0 else { return (r, g, b) }
        // The colour's own saturation (0 gray, 256 pure), and what is left of it.
        let saturation = Int32((high - low) * 256 / high)
        return Chroma.scaled(r, g, b, by: 256 + amount * (256 - saturation) / 256)
    }
}

enum Chroma {
    /// Each channel's distance from the pixel's Rec. 709 luma times `factor`/256 (8- or
    /// 16-bit samples).
    @inline(__always)
    static func scaled<T: FixedWidthInteger & UnsignedInteger>(_ r: T, _ g: T, _ b: T, by factor: Int32) -> (T, T, T) {
        guard factor != 256 else { return (r, g, b) }
        let y = Int64(luma(r, g, b))
        func channel(_ c: T) -> T {
            T(clamping: y + ((Int64(c) - y) * Int64(factor) + 128) >> 8)
        }
        return (channel(r), channel(g), channel(b))
    }
}
