import Codecs
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// Light and colour adjustments rendered by `camlib edit` on a real photo, measured on the
/// render's pixels; `auto` stored as the steps it chose.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AdjustmentEditTests {
    static func decode(_ path: String) throws -> PixelBuffer<UInt8> {
        try JPEGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).pixels
    }

    static func linear(_ v: UInt8) -> Double {
        let c = Double(v) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    @Test func onePlusStopRenderHasTwiceTheLightOfItsOriginal() throws {
        let scratch = try ScratchDirectory()
        let file = "orientation/Landscape_6.jpg"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "exposure:ev=1")], extending: false)
        let before = try Self.decode(Media.path(file)), after = try Self.decode(try #require(result.renders.first))
        #expect(before.width == after.width && before.height == after.height)
        // Over the pixels whose doubled light does not clip: the light, summed, doubles
        // (the JPEG's coding moves single samples a little).
        var (sumBefore, sumAfter) = (0.0, 0.0)
        for i in before.components.indices {
            let l = Self.linear(before.components[i])
            guard l > 0.02, l < 0.4 else { continue }
            sumBefore += l
            sumAfter += Self.linear(after.components[i])
        }
        #expect(sumBefore > 0)
        #expect(abs(sumAfter / sumBefore - 2) < 0.06, "ratio \(sumAfter / sumBefore)")
    }

    @Test func autoIsStoredAsTheStepsItChoseForThePhoto() throws {
        let scratch = try ScratchDirectory()
        let file = "orientation/Landscape_1.jpg"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "sepia"), try FilterStep(parsing: "auto")], extending: false)
        let preview = try library.editPreviewPicture(asset: id)
        let chosen = AutoEnhance.steps(measuring: try FilterStep(parsing: "sepia").apply(to: preview))
        #expect(result.recipe.steps == [try FilterStep(parsing: "sepia")] + chosen)
        let stored = try library.describe([id])[0].adjustments.last { $0.current }
        #expect(stored?.data.contains("\"auto\"") == false)
        #expect(try JSONDecoder().decode(FilterRecipe.self, from: Data(try #require(stored).data.utf8)).steps == result.recipe.steps)
        // The gallery's preview of `auto` shows what the edit stored.
        #expect(
            FilterRecipe(steps: [try FilterStep(parsing: "sepia"), try FilterStep(parsing: "auto")]).apply(to: preview)
                == result.recipe.filters.apply(to: preview))
    }
}
