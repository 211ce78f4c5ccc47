import Foundation
import Imaging

/// `auto`: light and colour set from the photo's histogram, as Photos' magic wand does.
/// An edit never stores `auto` itself: the library measures the photo (its preview, after
/// the steps before) and stores the steps it chose (``FilterRecipe/settingAuto(measuring:)``),
/// so every frame of a movie gets the same ones, and a person sees and can change them.
/// Applied as it is (an edit preview), it measures the picture it is given.
public struct AutoFilter: SixteenBitFilter {
    public static let treatsEveryDirectionAlike = true
    public static let name = "auto"
    public static let summary = "exposure, shadows, contrast and more, set from the histogram"
    public static let parameters = [
        FilterParameter(name: "strength", defaultValue: 1, range: 0...1, help: "how much of the correction is applied")
    ]
    let strength: Double

    public init(parameters: [String: Double]) {
        strength = parameters["strength"] ?? 1
    }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        let steps = AutoEnhance.steps(measuring: image, strength: strength)
        return FilterRecipe(steps: steps).apply(to: image)
    }

    /// Measured on the picture at 8 bits (the histogram has 256 bins); the steps it
    /// chooses drawn at 16.
    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        let steps = AutoEnhance.steps(measuring: image, strength: strength)
        return FilterRecipe(steps: steps).apply(to: image)
    }
}

public enum AutoEnhance {
    /// The steps that correct `picture` (RGB, any size; a million pixels at most are read),
    /// rounded to hundredths, none that would change nothing.
    public static func steps(measuring picture: borrowing PixelBuffer<UInt8>, strength: Double = 1) -> [FilterStep] {
        steps(Measure(picture), strength: strength)
    }

    /// The same for a 16-bit picture, measured on its samples rounded to 8 bits (the
    /// histogram has 256 bins) without an 8-bit copy of it.
    public static func steps(measuring picture: borrowing PixelBuffer<UInt16>, strength: Double = 1) -> [FilterStep] {
        steps(Measure(picture), strength: strength)
    }

    private static func steps(_ m: Measure, strength: Double) -> [FilterStep] {
        guard m.count > 0 else { return [] }
        // Exposure: a dark median tone towards 0.45 (18% gray in linear light is 0.46),
        // three fifths of the way, without clipping what is not clipped yet. A light one is
        // left light (a white wall, snow, a high-key portrait) unless its lights clip, and
        // then taken down a little only.
        let towardsGray = log2(SRGB.linear(0.45) / max(SRGB.linear(m.percentile(0.5)), 1e-4))
        var ev: Double
        if towardsGray > 0 {
            ev = min(1.5, 0.6 * towardsGray, max(0, log2(1 / max(SRGB.linear(m.percentile(0.995)), 1e-4)) + 0.25))
        } else {
            ev = m.fraction { $0 > 0.97 } > 0.02 ? max(-0.5, 0.35 * towardsGray) : 0
        }
        let gain = pow(2, ev)
        let exposed = { (t: Double) in SRGB.encoded(min(1, SRGB.linear(t) * gain)) }
        // After that exposure: where the darkest and lightest tones are, and how many
        // pixels are very dark or very light.
        let low = exposed(m.percentile(0.005)), high = exposed(m.percentile(0.995))
        let dark = m.fraction { exposed($0) < 0.2 }, light = m.fraction { exposed($0) > 0.9 }
        let contrast = high - low < 0.85 ? min(0.4, (0.85 - (high - low)) * 1.5) : 0
        let shadows = dark > 0.25 ? min(0.4, 0.1 + (dark - 0.25) * 1.2) : 0
        let highlights = light > 0.05 ? -min(0.5, light * 3) : 0
        let vibrance = m.meanChroma < 0.3 ? min(0.3, 0.3 - m.meanChroma) : 0
        let chosen: [(String, String, Double)] = [
            ("exposure", "ev", ev), ("highlights", "amount", highlights), ("shadows", "amount", shadows),
            ("contrast", "amount", contrast), ("vibrance", "amount", vibrance),
        ]
        return chosen.compactMap { name, key, value in
            let v = (value * strength * 100).rounded() / 100
            return v == 0 ? nil : try? FilterStep(name: name, parameters: [key: v])
        }
    }

    /// A histogram of Rec. 709 luma and the mean chroma, from at most about a million pixels.
    struct Measure {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        var meanChroma = 0.0

        init(_ picture: borrowing PixelBuffer<UInt8>) { self.init(picture) { $0 } }

        init(_ picture: borrowing PixelBuffer<UInt16>) { self.init(picture) { UInt8(SampleScale.fromSixteen($0, bits: 8)) } }

        private init<Sample: PixelComponent>(_ picture: borrowing PixelBuffer<Sample>, eightBit: (Sample) -> UInt8) {
            let pixels = picture.width * picture.height
            guard picture.channels == 3, pixels > 0 else { return }
            let stride = max(1, pixels / 1_000_000)
            var chroma = 0
            picture.components.withUnsafeBufferPointer { p in
                var i = 0
                while i < pixels {
                    let (r, g, b) = (eightBit(p[i * 3]), eightBit(p[i * 3 + 1]), eightBit(p[i * 3 + 2]))
                    histogram[Int(luma(r, g, b))] += 1
                    let high = Int(max(r, max(g, b)))
                    if high > 0 { chroma += (high - Int(min(r, min(g, b)))) * 255 / high }
                    count += 1
                    i += stride
                }
            }
            meanChroma = Double(chroma) / Double(count) / 255
        }

        /// The tone (0...1) below which `fraction` of the pixels are.
        func percentile(_ fraction: Double) -> Double {
            let target = Int((Double(count) * fraction).rounded(.up))
            var seen = 0
            for (tone, n) in histogram.enumerated() {
                seen += n
                if seen >= max(1, target) { return Double(tone) / 255 }
            }
            return 1
        }

        /// The share of pixels whose tone (0...1) passes `test`.
        func fraction(_ test: (Double) -> Bool) -> Double {
            Double(histogram.indices.reduce(0) { $0 + (test(Double($1) / 255) ? histogram[$1] : 0) }) / Double(count)
        }
    }
}

extension FilterRecipe {
    /// Whether a step is `auto`, which an edit sets from the photo before it is stored.
    public var setsAuto: Bool { steps.contains { $0.name == AutoFilter.name } }

    /// The recipe with each `auto` step replaced by the steps it chooses for `picture` (the
    /// photo's preview, upright) as the steps before it left it.
    public func settingAuto(measuring picture: PixelBuffer<UInt8>) -> FilterRecipe {
        guard setsAuto else { return self }
        var working = picture
        var done = 0
        var out: [FilterStep] = []
        for (i, step) in steps.enumerated() where step.name == AutoFilter.name {
            // The steps since the last auto, over the working picture, then this one measured.
            let before = Array(steps[done..<i])
            working = FilterRecipe(steps: before).apply(to: working)
            let chosen = AutoEnhance.steps(measuring: working, strength: step.parameters["strength"] ?? 1)
            working = FilterRecipe(steps: chosen).apply(to: working)
            out += before + chosen
            done = i + 1
        }
        return FilterRecipe(steps: out + steps[done...])
    }
}
