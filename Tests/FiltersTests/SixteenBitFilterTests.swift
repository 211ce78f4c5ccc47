import Foundation
import Imaging
import Testing

@testable import Filters

/// Recipes over 16-bit pictures (10-bit HEIC, 16-bit PNG): the same looks as at 8 bits,
/// with the precision kept.
struct SixteenBitFilterTests {
    /// A smooth picture: red rising along x in 4,096 steps, green falling, blue rising
    /// along y; with an 8-bit twin of it.
    static func gradient(width: Int = 4096, height: Int = 64) -> PixelBuffer<UInt16> {
        var p = PixelBuffer<UInt16>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x) / Double(width - 1)
                p[x: x, y: y, channel: 0] = UInt16((t * 65535).rounded())
                p[x: x, y: y, channel: 1] = UInt16(((1 - t) * 65535).rounded())
                p[x: x, y: y, channel: 2] = UInt16((Double(y) / Double(max(1, height - 1)) * 40000 + 10000).rounded())
            }
        }
        return p
    }

    static func recipe(_ text: String) throws -> FilterRecipe {
        try FilterRecipe(steps: text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
    }

    /// Every step, drawn at 16 bits and rounded to 8, matches the same step drawn on the
    /// picture rounded to 8 bits first, within the 8-bit render's own rounding.
    @Test(arguments: [
        "exposure:ev=1", "exposure:ev=-1.5", "contrast:amount=0.6", "highlights:amount=-0.7", "shadows:amount=0.8", "saturation:amount=0.8",
        "saturation:amount=-1", "vibrance:amount=0.9", "warmth:amount=0.7", "tint:amount=-0.6", "mono", "noir", "sepia:intensity=0.8",
        "vignette:strength=0.8", "auto", "crop:x=0.1,y=0.2,width=0.5,height=0.6", "rotate:degrees=90", "flip:direction=vertical",
        "straighten:degrees=4", "comic", "posterize:levels=5",
    ])
    func eachStepLooksAsItDoesAtEightBits(_ text: String) throws {
        let recipe = try Self.recipe(text)
        let wide = Self.gradient(width: 512, height: 96)
        let deep = recipe.apply(to: wide).eightBit()
        let shallow = recipe.apply(to: wide.eightBit())
        #expect(deep.width == shallow.width && deep.height == shallow.height && deep.channels == 3)
        var worst = 0, total = 0
        for i in deep.components.indices {
            let d = abs(Int(deep.components[i]) - Int(shallow.components[i]))
            worst = max(worst, d)
            total += d
        }
        let mean = Double(total) / Double(deep.components.count)
        // Curves steep at black (exposure, warmth) and the 8-bit render's rounding of a
        // rounded input may move a level or two; comic's edges may fall a pixel apart.
        let limit = text == "comic" || text.hasPrefix("posterize") ? 255 : 3
        #expect(worst <= limit, "\(text): worst \(worst)")
        #expect(mean < (limit == 255 ? 2 : 0.6), "\(text): mean difference \(mean)")
    }

    /// Geometry on a 16-bit picture as stored is folded into its orientation, as at 8
    /// bits: the same samples as turning it upright, filtering and turning it back
    /// (exactly for crops, turns and flips; a straighten within a few 16-bit units, its
    /// crop and turn resampled once instead of one after the other). A recipe with a step
    /// that has a direction (comic's halftone) still turns the picture upright.
    @Test(arguments: EXIFOrientation.allCases)
    func geometryOnAStoredPictureIsFoldedIntoItsOrientation(_ orientation: EXIFOrientation) throws {
        let stored = Self.gradient(width: 90, height: 64)
        for text in ["exposure:ev=0.4 crop:x=0.1,y=0.2,width=0.6,height=0.7 rotate:degrees=90 saturation:amount=0.3 flip", "crop:aspect=1:1 straighten:degrees=3 mono"] {
            let recipe = try Self.recipe(text)
            let folded = recipe.apply(toStored: stored, shownIn: orientation)
            let turned = recipe.apply(to: stored.applying(orientation)).applying(orientation.inverse)
            #expect(folded.width == turned.width && folded.height == turned.height, "\(text) in \(orientation)")
            guard folded.width == turned.width, folded.height == turned.height else { continue }
            let worst = zip(folded.components, turned.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= (text.contains("straighten") ? 8 : 0), "\(text) in \(orientation): \(worst)")
        }
    }

    /// At 16 bits a step keeps the levels between the 8-bit ones: a smooth ramp of 4,096
    /// levels stays thousands of levels after exposure, contrast and saturation, where
    /// 8 bits would leave at most 256.
    @Test func aSmoothRampKeepsItsLevels() throws {
        let out = try Self.recipe("exposure:ev=0.5 contrast:amount=0.3 shadows:amount=0.4 highlights:amount=-0.3 saturation:amount=0.2 warmth:amount=0.2 vignette:strength=0.3").apply(to: Self.gradient())
        let row = Set((0..<out.width).map { out[x: $0, y: 20, channel: 1] })
        #expect(row.count > 2000, "\(row.count) levels of green along a row")
    }

    /// Exposure +1 doubles linear light at 16 bits too, to within a 16-bit level.
    @Test func onePlusStopDoublesLinearLightAtSixteenBits() throws {
        let input = Self.gradient(width: 1024, height: 1)
        let out = try Self.recipe("exposure:ev=1").apply(to: input)
        for x in stride(from: 40, to: 1024, by: 7) {
            let light = SRGB.linear(Double(input[x: x, y: 0, channel: 0]) / 65535)
            let expected = SRGB.encoded(min(1, 2 * light)) * 65535
            #expect(abs(Double(out[x: x, y: 0, channel: 0]) - expected) <= 1, "x \(x)")
        }
    }

    /// Comic and posterize, which draw a few flat tones, work at 8 bits inside a 16-bit
    /// recipe; the steps around them keep 16.
    @Test func stepsWithoutSixteenBitsAreDrawnAtEightInsideTheRecipe() throws {
        #expect(try !Self.recipe("exposure:ev=1 comic").worksInSixteenBits)
        #expect(try Self.recipe("exposure:ev=1 crop:aspect=1:1 depth mono").worksInSixteenBits)
        let out = try Self.recipe("posterize:levels=4 exposure:ev=0.3").apply(to: Self.gradient(width: 512, height: 8))
        // The posterized tones, each then exposed at 16 bits: not multiples of 257.
        let tones = Set((0..<512).map { out[x: $0, y: 4, channel: 0] })
        #expect(tones.count <= 6 && tones.contains { $0 % 257 != 0 }, "\(tones.sorted())")
    }
    /// Local tone's summary and auto's histogram of a 16-bit picture are those of the
    /// picture rounded to 8 bits, though no 8-bit copy of the whole is made: the summary
    /// is fed a band of rows at a time (here 3 bands, the last a short one).
    @Test func summariesOfSixteenBitsAreThoseOfTheRoundedPicture() throws {
        var picture = Self.gradient(width: 300, height: SmoothedImage.bandRows * 2 + 21)
        var seed: UInt32 = 7
        for i in picture.components.indices where i % 5 == 0 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            picture.components[i] = UInt16(truncatingIfNeeded: seed >> 12)
        }
        let rounded = picture.eightBit()
        let row = picture.eightBit(rows: 70..<71)
        let sameRow = row.width == 300 && row.height == 1 && row.components == Array(rounded.components[(70 * 900)..<(71 * 900)])
        #expect(sameRow, "row 70 alone is not row 70 of the whole rounded")
        let banded = SmoothedImage(sixteenBit: picture, shortSide: 24, blurRadius: 1)
        let whole = SmoothedImage(rounded, shortSide: 24, blurRadius: 1)
        #expect(banded.scale == whole.scale)
        for (a, b) in [(banded.red, whole.red), (banded.green, whole.green), (banded.blue, whole.blue), (banded.luma, whole.luma)] {
            #expect(a.width == b.width && a.height == b.height)
            let worst = zip(a.values, b.values).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 0.01, "the banded summary is \(worst) off")
        }
        for strength in [1.0, 0.5] {
            let steps = AutoEnhance.steps(measuring: picture, strength: strength)
            #expect(!steps.isEmpty && steps == AutoEnhance.steps(measuring: rounded, strength: strength), "\(steps)")
        }
    }
}
