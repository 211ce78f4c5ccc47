import Foundation
import Imaging
import Testing

@testable import Filters

/// Light and colour adjustments, measured on pixels.
struct AdjustmentTests {
    /// Every 8-bit value once, in all three channels, and a row of each pure channel.
    static func ramp() -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: 256, height: 1, channels: 3)
        for x in 0..<256 { for c in 0..<3 { p[x: x, y: 0, channel: c] = UInt8(x) } }
        return p
    }

    static func linear(_ v: UInt8) -> Double { SRGB.linear(Double(v) / 255) }

    static func apply(_ text: String, _ picture: PixelBuffer<UInt8>) throws -> PixelBuffer<UInt8> {
        try FilterRecipe(steps: text.split(separator: " ").map { try FilterStep(parsing: String($0)) }).apply(to: picture)
    }

    @Test func onePlusStopDoublesLinearLightAndOneMinusHalvesIt() throws {
        let up = try Self.apply("exposure:ev=1", Self.ramp()), down = try Self.apply("exposure:ev=-1", Self.ramp())
        var ratios: [Double] = []
        for v in 20..<256 {
            let input = Self.linear(UInt8(v))
            // Each output is the 8-bit value nearest twice (half) the light.
            let twice = SRGB.encoded(min(1, 2 * input)) * 255, half = SRGB.encoded(input / 2) * 255
            #expect(abs(Double(up[x: v, y: 0, channel: 1]) - twice) <= 0.5001, "\(v) up")
            #expect(abs(Double(down[x: v, y: 0, channel: 1]) - half) <= 0.5001, "\(v) down")
            if 2 * input < 0.95 { ratios.append(Self.linear(up[x: v, y: 0, channel: 0]) / input) }
        }
        let mean = ratios.reduce(0, +) / Double(ratios.count)
        #expect(abs(mean - 2) < 0.01, "mean linear ratio \(mean)")
        // Clipped at white, never wrapped.
        #expect(up[x: 255, y: 0, channel: 2] == 255 && up[x: 200, y: 0, channel: 2] == 255)
    }

    @Test(arguments: ["contrast:amount=1", "contrast:amount=-1", "shadows:amount=1", "shadows:amount=-1", "highlights:amount=1",
                      "highlights:amount=-1", "exposure:ev=4", "exposure:ev=-4", "warmth:amount=1", "tint:amount=-1"])
    func toneCurvesKeepTheirOrderAtTheirExtremes(_ text: String) throws {
        let out = try Self.apply(text, Self.ramp())
        for c in 0..<3 {
            for x in 1..<256 { #expect(out[x: x, y: 0, channel: c] >= out[x: x - 1, y: 0, channel: c], "\(text) channel \(c) at \(x)") }
        }
    }

    @Test func contrastSteepensMidTonesAndKeepsBlackAndWhite() throws {
        let more = try Self.apply("contrast:amount=0.5", Self.ramp()), less = try Self.apply("contrast:amount=-0.5", Self.ramp())
        for out in [more, less] {
            #expect(out[x: 0, y: 0, channel: 0] == 0 && out[x: 255, y: 0, channel: 0] == 255)
        }
        // Quarter and three-quarter tones move apart with more, together with less.
        #expect(more[x: 64, y: 0, channel: 0] < 64 && more[x: 191, y: 0, channel: 0] > 191)
        #expect(less[x: 64, y: 0, channel: 0] > 64 && less[x: 191, y: 0, channel: 0] < 191)
    }

    @Test func shadowsMoveTheDarksAndHighlightsTheLights() throws {
        let lifted = try Self.apply("shadows:amount=0.6", Self.ramp()), pulled = try Self.apply("highlights:amount=-0.6", Self.ramp())
        let lift = { (v: Int) in Int(lifted[x: v, y: 0, channel: 0]) - v }
        let pull = { (v: Int) in v - Int(pulled[x: v, y: 0, channel: 0]) }
        #expect(lift(60) > 20 && lift(60) > 4 * max(1, lift(220)))
        #expect(pull(200) > 20 && pull(200) > 4 * max(1, pull(40)))
        #expect(lifted[x: 0, y: 0, channel: 0] == 0)
        // Black and white areas stay black and white.
        let flat = { (v: UInt8) in PixelBuffer<UInt8>(width: 64, height: 64, channels: 3, components: Array(repeating: v, count: 64 * 64 * 3)) }
        #expect(try Self.apply("shadows:amount=1", flat(0)).components.allSatisfy { $0 == 0 })
        #expect(try Self.apply("highlights:amount=-1", flat(255)).components.allSatisfy { $0 == 255 })
    }

    /// A gray picture: `left` on the left half, `right` on the right, a small square of
    /// `patch` (6 pixels) in the middle of each half when given, and a fine checker of
    /// ±`texture` over all.
    static func halves(left: Int, right: Int, patch: Int? = nil, texture: Int = 0) -> PixelBuffer<UInt8> {
        let (w, h) = (600, 300)
        var p = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        for y in 0..<h {
            for x in 0..<w {
                var v = x < w / 2 ? left : right
                if let patch, abs(y - h / 2) < 3, abs(x % (w / 2) - w / 4) < 3 { v = patch }
                v += (x / 3 + y / 3) % 2 == 0 ? texture : -texture
                for c in 0..<3 { p[x: x, y: y, channel: c] = UInt8(max(0, min(255, v))) }
            }
        }
        return p
    }

    /// Highlights and shadows are local: a small gray detail is lifted more among dark than
    /// among light (a global curve lifts both alike); it is judged by its surroundings.
    @Test func theSameGrayIsLiftedMoreAmongDarkThanAmongLight() throws {
        let out = try Self.apply("shadows:amount=0.8", Self.halves(left: 25, right: 200, patch: 90))
        let inDark = Int(out[x: 150, y: 150, channel: 0]), inLight = Int(out[x: 450, y: 150, channel: 0])
        #expect(inDark > 90 + 20 && inDark > inLight + 15, "the patch among dark became \(inDark), among light \(inLight)")
    }

    /// A lifted dark area keeps its texture's contrast (its spread over its mean), and a
    /// pulled-down light one nearly: the global curves these steps once were changed it
    /// by their slope, by 22% (shadows) and 97% (highlights) here. Texture of 16 levels is
    /// at the edge of what the base follows (see `LocalTone.epsilon`).
    @Test func aLiftedAreaKeepsItsTexturesContrast() throws {
        for (text, base, limit) in [("shadows:amount=0.8", 45, 0.08), ("highlights:amount=-0.8", 200, 0.25)] {
            let input = Self.halves(left: base, right: base, texture: 8)
            let out = try Self.apply(text, input)
            func contrast(_ p: PixelBuffer<UInt8>) -> Double {
                let values = (100..<200).flatMap { y in (200..<400).map { x in Double(p[x: x, y: y, channel: 1]) } }
                let mean = values.reduce(0, +) / Double(values.count)
                return (values.max()! - values.min()!) / mean
            }
            let (before, after) = (contrast(input), contrast(out))
            #expect(abs(after / before - 1) < limit, "\(text): texture contrast \(before) became \(after)")
            #expect(abs(Double(out[x: 300, y: 150, channel: 1]) - Double(base)) > 15, "\(text) moved the area")
        }
    }

    /// No halo at a strong edge: a flat dark half is lifted evenly right up to a light
    /// half, which stays even too (the curve lifts 220 to 228 by itself).
    @Test func aStrongEdgeMakesNoHalo() throws {
        let out = try Self.apply("shadows:amount=1", Self.halves(left: 20, right: 220))
        let dark = (0..<300).map { Int(out[x: $0, y: 150, channel: 0]) }, light = (300..<600).map { Int(out[x: $0, y: 150, channel: 0]) }
        #expect(dark.min()! > 35, "lifted: \(dark.min()!)")
        #expect(dark.max()! - dark.min()! <= 3, "the dark half runs from \(dark.min()!) to \(dark.max()!)")
        #expect(light.max()! - light.min()! <= 3 && light.min()! >= 220, "the light half runs from \(light.min()!) to \(light.max()!)")
    }

    /// A mid-gray patch and a coloured one.
    static func patches() -> PixelBuffer<UInt8> {
        PixelBuffer(width: 3, height: 1, channels: 3, components: [128, 128, 128, 200, 120, 80, 110, 100, 95])
    }

    static func chroma(_ p: PixelBuffer<UInt8>, _ x: Int) -> Int {
        let c = (0..<3).map { Int(p[x: x, y: 0, channel: $0]) }
        return c.max()! - c.min()!
    }

    @Test func saturationScalesColourAndMinusOneIsGray() throws {
        let gray = try Self.apply("saturation:amount=-1", Self.patches()), vivid = try Self.apply("saturation:amount=0.5", Self.patches())
        #expect(Self.chroma(gray, 1) == 0 && Self.chroma(gray, 2) == 0)
        // Half as far again from gray, within rounding.
        #expect(abs(Double(Self.chroma(vivid, 1)) - 1.5 * 120) <= 2)
        #expect(Self.chroma(vivid, 0) == 0)
    }

    @Test func vibranceRaisesMutedColourMoreThanVividColour() throws {
        let out = try Self.apply("vibrance:amount=1", Self.patches())
        let muted = Double(Self.chroma(out, 2)) / 15, vivid = Double(Self.chroma(out, 1)) / 120
        #expect(muted > 1.6 && vivid < 1.5 && vivid > 1, "muted ×\(muted), vivid ×\(vivid)")
        #expect(Self.chroma(out, 0) == 0)
    }

    @Test func warmthAndTintShiftWhiteBalanceInLinearLight() throws {
        let warm = try Self.apply("warmth:amount=1", Self.patches()), cool = try Self.apply("warmth:amount=-1", Self.patches())
        let magenta = try Self.apply("tint:amount=1", Self.patches())
        let ratio = { (p: PixelBuffer<UInt8>, a: Int, b: Int) in Self.linear(p[x: 0, y: 0, channel: a]) / Self.linear(p[x: 0, y: 0, channel: b]) }
        // 0.4 stop up and 0.4 down: red over blue 2^0.8 in linear light, within rounding.
        #expect(abs(ratio(warm, 0, 2) - pow(2, 0.8)) < 0.03 && abs(ratio(cool, 2, 0) - pow(2, 0.8)) < 0.03)
        #expect(warm[x: 0, y: 0, channel: 1] == 128)
        #expect(abs(ratio(magenta, 0, 1) - pow(2, 0.4)) < 0.03 && magenta[x: 0, y: 0, channel: 0] == 128)
    }

    /// `testPicture` with its light times `gain` (linear).
    static func exposed(_ gain: Double) -> PixelBuffer<UInt8> {
        var p = testPicture(width: 200, height: 150)
        for i in p.components.indices { p.components[i] = clampByte(SRGB.encoded(min(1, Self.linear(p.components[i]) * gain)) * 255) }
        return p
    }

    static func median(_ p: PixelBuffer<UInt8>) -> Double { AutoEnhance.Measure(p).percentile(0.5) }

    @Test func autoBrightensADarkPhotoAndLeavesAGoodOneNearlyAlone() throws {
        let dark = Self.exposed(0.15)
        let steps = AutoEnhance.steps(measuring: dark)
        let ev = try #require(steps.first { $0.name == "exposure" }?.parameters["ev"])
        #expect(ev > 0.8, "\(steps)")
        let corrected = FilterRecipe(steps: steps).apply(to: dark)
        #expect(Self.median(corrected) > Self.median(dark) + 0.08)
        // The same picture well exposed: a small change at most.
        let good = AutoEnhance.steps(measuring: Self.exposed(1))
        #expect(abs(good.first { $0.name == "exposure" }?.parameters["ev"] ?? 0) < 0.4, "\(good)")
        // A light scene whose lights do not clip (a white wall) is left light.
        var light = PixelBuffer<UInt8>(width: 100, height: 100, channels: 3)
        for i in light.components.indices { light.components[i] = UInt8(190 + (i / 3) % 40) }
        #expect(!AutoEnhance.steps(measuring: light).contains { $0.name == "exposure" })
        // Half the strength, half the exposure (to the hundredth).
        let half = AutoEnhance.steps(measuring: dark, strength: 0.5).first { $0.name == "exposure" }?.parameters["ev"] ?? 0
        #expect(abs(half - ev / 2) <= 0.011)
    }

    @Test func anEditStoresTheStepsAutoChoseNotAuto() throws {
        let dark = Self.exposed(0.15)
        let recipe = FilterRecipe(steps: [try FilterStep(parsing: "mono"), try FilterStep(parsing: "auto"), try FilterStep(parsing: "vignette")])
        let set = recipe.settingAuto(measuring: dark)
        #expect(!set.setsAuto)
        #expect(set.steps.first?.name == "mono" && set.steps.last?.name == "vignette")
        // Measured after mono, as the picture then was.
        let afterMono = try FilterStep(parsing: "mono").apply(to: dark)
        #expect(Array(set.steps.dropFirst().dropLast()) == AutoEnhance.steps(measuring: afterMono))
        // Applied as it is (an edit preview), auto renders what the set recipe renders.
        #expect(recipe.apply(to: dark) == set.apply(to: dark))
    }
}
