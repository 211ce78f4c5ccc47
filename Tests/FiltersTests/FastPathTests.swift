import CRowLoops
import Foundation
import Imaging
import Testing

@testable import Filters

/// The loops a movie frame goes through (bilinear resampling in C, colour steps in one
/// pass, colours drawn over the pixels the geometry reads alone) against plain references.
struct FastPathTests {
    /// Random samples, the same each run.
    static func noise(width: Int, height: Int, channels: Int, seed: UInt64) -> PixelBuffer<UInt8> {
        var state = seed
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: channels)
        for i in p.components.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            p.components[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return p
    }

    static let placements: [GeometryPlacement] = [
        // 3 degrees about the centre of a 1.4x crop, as a straighten makes.
        GeometryPlacement(width: 61, height: 45, a: cos(0.05), b: -sin(0.05), c: 8, d: sin(0.05), e: cos(0.05), f: 3, exact: false),
        // Reaching past every edge, shrinking and shearing.
        GeometryPlacement(width: 75, height: 53, a: 0.7, b: 0.2, c: -3, d: -0.15, e: 0.6, f: -2, exact: false),
        // A quarter turn with a fraction of a pixel's offset, and a mirror.
        GeometryPlacement(width: 23, height: 37, a: 0, b: 1, c: 0.3, d: -1, e: 0, f: 37.6, exact: false),
        // Enlarging: several output pixels between two input ones, up to the last row and column.
        GeometryPlacement(width: 130, height: 90, a: 0.29, b: 0, c: 0, d: 0, e: 0.25, f: 0, exact: false),
    ]

    /// The AVX2 loop places and weighs every pixel as the scalar one does, to the byte, at
    /// every edge (what runs depends on the processor; a render must not).
    @Test(arguments: [1, 3, 4])
    func vectorResamplingMatchesTheScalarLoop(channels: Int) {
        for (n, placement) in Self.placements.enumerated() {
            let input = Self.noise(width: 37, height: 23, channels: channels, seed: UInt64(n + 1))
            let fast = placement.apply(to: input)
            var scalar = PixelBuffer<UInt8>(width: placement.width, height: placement.height, channels: channels)
            let coefficients = [placement.a, placement.b, placement.c, placement.d, placement.e, placement.f]
            input.components.withUnsafeBufferPointer { src in
                scalar.components.withUnsafeMutableBufferPointer { dst in
                    camlib_bilinear_rows_scalar(src.baseAddress, 37, 23, channels, placement.width, 0, placement.height, coefficients, dst.baseAddress)
                }
            }
            let differing = zip(fast.components, scalar.components).filter { $0 != $1 }.count
            #expect(fast.width == scalar.width && fast.height == scalar.height && differing == 0, "placement \(n), \(channels) channels: \(differing) samples differ")
        }
    }

    /// Against bilinear interpolation in Double (the 16-bit path, an 8-bit picture scaled
    /// up by 257): every sample within two levels on noise, where neighbours differ by up
    /// to 255 (weights truncated to 1/256 in each direction, and the result rounded); a
    /// point a pixel off would miss by far more.
    @Test func fixedPointResamplingIsBilinearInterpolation() {
        for (n, placement) in Self.placements.enumerated() {
            let input = Self.noise(width: 37, height: 23, channels: 3, seed: UInt64(n + 7))
            let bytes = placement.apply(to: input)
            let wide = placement.apply(to: PixelBuffer<UInt16>(width: 37, height: 23, channels: 3, components: input.components.map { UInt16($0) * 257 }))
            let worst = zip(bytes.components, wide.components).map { abs(Double($0) - Double($1) / 257) }.max() ?? 0
            #expect(worst < 2, "placement \(n): \(worst)")
        }
    }

    /// Exposure, contrast, warmth, tint, saturation and highlights' neighbours drawn in one
    /// pass give the bytes of each step drawn on its own, one after the other.
    @Test func colourStepsInOnePassMatchEachStepAlone() throws {
        let picture = Self.noise(width: 64, height: 48, channels: 3, seed: 42)
        let texts = ["exposure:ev=0.3", "contrast:amount=0.2", "saturation:amount=0.2", "warmth:amount=0.4", "tint:amount=-0.3", "saturation:amount=-0.6"]
        var pass = ColourPass()
        var separate = picture
        for text in texts {
            let step = try FilterStep(parsing: text)
            let filter = FilterCatalog.filter(named: step.name)!.init(parameters: step.parameters)
            let taken = pass.append(filter)
            #expect(taken, "\(text)")
            // Each step alone, through the Swift arithmetic the pass replaces.
            if let curves = filter as? any ChannelCurveFilter {
                let t = curves.curve.bytes
                mapPixels(&separate) { r, g, b in (t[Int(r)], t[256 + Int(g)], t[512 + Int(b)]) }
            } else if let saturation = filter as? SaturationFilter {
                mapPixels(&separate) { r, g, b in Chroma.scaled(r, g, b, by: saturation.factor) }
            }
        }
        // Two runs of curves (exposure and contrast; warmth and tint) are a table each.
        #expect(pass.steps.count == 4)
        #expect(pass.apply(to: picture) == separate)
        let mono = pass.append(MonoFilter(parameters: [:]))
        #expect(!mono)
        // Over a region cut out in the picture's storage: the same pixels.
        let region = PixelRegion(x: 5, y: 7, width: 40, height: 30)
        let cut = pass.apply(to: picture.cropped(x: region.x, y: region.y, width: region.width, height: region.height))
        for y in 0..<region.height {
            for x in 0..<region.width {
                for c in 0..<3 { #expect(cut[x: x, y: y, channel: c] == separate[x: region.x + x, y: region.y + y, channel: c]) }
            }
        }
    }

    /// A crop after colour steps: the colours are drawn over the pixels the geometry reads
    /// alone, and the render is the one of drawing them everywhere first (within a level:
    /// the placement moved to the region rounds its points anew).
    @Test(arguments: ["exposure:ev=0.4 saturation:amount=0.3 crop:aspect=1:1 straighten:degrees=3", "contrast:amount=0.3 crop:x=0.5,y=0.1,width=0.4,height=0.5", "saturation:amount=0.5 crop:x=0,y=0,width=0.3,height=1 rotate:degrees=90"])
    func coloursBeforeACropAreDrawnOverWhatItKeeps(_ text: String) throws {
        let picture = Self.noise(width: 160, height: 120, channels: 3, seed: 9)
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
        let filters = recipe.filters
        let colourCount = filters.prefix { !($0 is any GeometryFilter) }.count
        var pass = ColourPass()
        for filter in filters.prefix(colourCount) { _ = pass.append(filter) }
        var placement = GeometryPlacement.identity(width: 160, height: 120)
        for case let geometry as any GeometryFilter in filters.dropFirst(colourCount) {
            placement = geometry.placement(width: placement.width, height: placement.height).after(placement)
        }
        let region = placement.sourceRegion(width: 160, height: 120)
        #expect(region.width * region.height < 160 * 120 * 9 / 10, "\(text): \(region)")
        let everywhere = placement.apply(to: pass.apply(to: picture))
        let rendered = recipe.apply(to: picture)
        #expect(rendered.width == everywhere.width && rendered.height == everywhere.height)
        let worst = zip(rendered.components, everywhere.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= (placement.exact ? 0 : 1), "\(text): \(worst)")
    }
}
