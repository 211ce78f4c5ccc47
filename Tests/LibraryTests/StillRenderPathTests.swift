import Codecs
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// A comic of a HEIC is decided from the photo's coded Y'CbCr planes and drawn straight
/// into the encoder's: no full-size RGB picture on either side.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct StillRenderPathTests {
    static let path = Media.path("apple-live-photo/IMG_3582.HEIC")

    /// Only a recipe that needs nothing of the photo but its average, and draws Y'CbCr
    /// itself, goes this way.
    @Test(arguments: [("comic", true), ("posterize", false), ("comic,vignette", false), ("noir", false)])
    func whichRecipesAreDrawnFromTheCodedPlanes(recipe text: String, fromPlanes: Bool) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: ",").map { try FilterStep(name: String($0)) })
        let primary = try HEIFFile(path: Self.path).primaryImage()
        let rendering = try StillRenderer.summarizedFromYCbCr(primary, recipe: recipe)
        #expect((rendering != nil) == fromPlanes)
        if let rendering { #expect((rendering.width, rendering.height) == (5712, 4284)) }  // as stored: irot turns it
    }

    /// The render shows what the filter drew (the reference drawn as RGB from the same
    /// summary), in its colours: a wrong matrix or range would shift whole channels.
    @Test func theRenderShowsTheComicInItsColours() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path)))
        let recipe = FilterRecipe(steps: [try FilterStep(name: "comic")])
        let render = try StillRenderer.renderHEIF(path: Self.path, bytes: bytes, auxiliaryBytes: bytes, recipe: recipe, embeddedMovie: nil)
        let decoded = try HEIFFile(bytes: render.bytes).primaryImage().decodeStoredRGB()
        let rendering = try #require(try StillRenderer.summarizedFromYCbCr(try HEIFFile(path: Self.path).primaryImage(), recipe: recipe))
        var reference = PixelBuffer<UInt8>(width: rendering.width, height: rendering.height, channels: 3)
        rendering.draw(&reference, x: 0, y: 0)
        #expect((decoded.width, decoded.height) == (reference.width, reference.height))
        var total = 0.0
        var bias = [0.0, 0.0, 0.0]
        for i in reference.components.indices {
            let d = Double(decoded.components[i]) - Double(reference.components[i])
            total += abs(d)
            bias[i % 3] += d
        }
        let n = Double(reference.components.count)
        bias = bias.map { $0 / (n / 3) }
        // x265 at the original's bytes smears the halftone's dots a little.
        #expect(total / n < 6 && bias.allSatisfy { abs($0) < 1.5 }, "mean difference \(total / n), bias per channel \(bias)")
    }
}
