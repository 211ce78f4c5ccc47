import Foundation
import Imaging

// Light: exposure in linear light, and tone curves over the encoded values (as a person
// sees tones): for contrast a curve per channel, for highlights and shadows a local one
// (`LocalTone`). At 0 each is the identity, sample for sample.

/// Exposure in stops: linear light times 2^ev (+1 doubles it), clipped at white.
public struct ExposureFilter: ChannelCurveFilter {
    public static let name = "exposure"
    public static let summary = "brighter or darker in stops of light (linear light times 2^ev)"
    public static let parameters = [
        FilterParameter(name: "ev", defaultValue: 0, range: -4...4, help: "stops: +1 doubles the light, -1 halves it")
    ]
    let curve: ToneCurve

    public init(parameters: [String: Double]) {
        let gain = pow(2, parameters["ev"] ?? 0)
        curve = ToneCurve { SRGB.encoded(min(1, SRGB.linear($0) * gain)) }
    }
}

/// Contrast: an S-curve through mid-gray that keeps black and white where they are.
public struct ContrastFilter: ChannelCurveFilter {
    public static let name = "contrast"
    public static let summary = "more or less contrast around mid-gray, black and white kept"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1: mid-tones 1.5 times as steep; -1: flatter")
    ]
    let curve: ToneCurve

    public init(parameters: [String: Double]) {
        let a = parameters["amount"] ?? 0
        // t + a·t(1-t)(2t-1): slope 1 + a/2 at mid-gray, 1 - a at the ends; monotone for |a| ≤ 1.
        curve = ToneCurve { t in t + a * t * (1 - t) * (2 * t - 1) }
    }
}

/// Shadows: the dark parts of the photo lifted (or deepened), the light ones barely
/// touched; local (``LocalToneFilter``).
public struct ShadowsFilter: LocalToneFilter {
    public static let name = "shadows"
    public static let summary = "lifts (or deepens) the dark areas, by their surroundings"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "1 lifts the dark tones; -1 deepens them")
    ]
    let amount: Double

    public init(parameters: [String: Double]) {
        amount = parameters["amount"] ?? 0
    }

    /// t + k·a·t(1-t)²: strongest at a third of the way up, nothing at black or white;
    /// k keeps the curve rising (2 when lifting, 1 when deepening).
    func curve(_ t: Double) -> Double {
        let k = amount > 0 ? 2.0 : 1.0
        return t + k * amount * t * (1 - t) * (1 - t)
    }
}

/// Highlights: the light parts of the photo pulled down (recovered) or pushed up, the
/// dark ones barely touched; local (``LocalToneFilter``).
public struct HighlightsFilter: LocalToneFilter {
    public static let name = "highlights"
    public static let summary = "pulls down (or brightens) the light areas, by their surroundings"
    public static let parameters = [
        FilterParameter(name: "amount", defaultValue: 0, range: -1...1, help: "-1 pulls the light tones down; 1 brightens them")
    ]
    let amount: Double

    public init(parameters: [String: Double]) {
        amount = parameters["amount"] ?? 0
    }

    /// t + k·a·t²(1-t): the mirror of shadows (2 when pulling down, 1 when brightening).
    func curve(_ t: Double) -> Double {
        let k = amount < 0 ? 2.0 : 1.0
        return t + k * amount * t * t * (1 - t)
    }
}
