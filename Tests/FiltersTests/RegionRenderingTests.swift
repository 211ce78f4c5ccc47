import Imaging
import Testing

@testable import Filters

/// Pictures too large to hold whole are rendered tile by tile (`RegionRendering`): the
/// tiles, put together, must be the picture rendered whole.
struct RegionRenderingTests {
    /// The picture cut into tiles (the right and bottom ones smaller), each passed through
    /// `body` at its place, and put together again.
    static func byTiles(
        _ picture: PixelBuffer<UInt8>, tile: (width: Int, height: Int), _ body: (inout PixelBuffer<UInt8>, Int, Int) -> Void
    ) -> PixelBuffer<UInt8> {
        var out = PixelBuffer<UInt8>(width: picture.width, height: picture.height, channels: 3)
        for top in stride(from: 0, to: picture.height, by: tile.height) {
            for left in stride(from: 0, to: picture.width, by: tile.width) {
                let (w, h) = (min(tile.width, picture.width - left), min(tile.height, picture.height - top))
                var region = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
                for y in 0..<h {
                    for x in 0..<(w * 3) { region.components[y * w * 3 + x] = picture.components[((top + y) * picture.width + left) * 3 + x] }
                }
                body(&region, left, top)
                for y in 0..<h {
                    for x in 0..<(w * 3) { out.components[((top + y) * picture.width + left) * 3 + x] = region.components[y * w * 3 + x] }
                }
            }
        }
        return out
    }

    @Test(arguments: ["comic", "posterize", "vignette", "mono", "noir", "sepia", "noir,vignette", "sepia,comic,vignette"])
    func tilesPutTogetherAreThePictureRenderedWhole(recipe text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: ",").map { try FilterStep(name: String($0)) })
        // Larger than the working size, so the summary is an average of several pixels.
        let picture = ComicFilterTests.scene(width: 1500, height: 1100, noise: 4)
        let whole = recipe.apply(to: picture)
        let rendering = try #require(RegionRendering(recipe: recipe, width: 1500, height: 1100))
        let tile = (width: 512, height: 384)
        if rendering.needsSummary {
            _ = Self.byTiles(picture, tile: tile) { region, x, y in rendering.summarize(region, x: x, y: y) }
            rendering.finishSummary()
        }
        #expect(!rendering.needsSummary)
        let tiled = Self.byTiles(picture, tile: tile) { region, x, y in rendering.draw(&region, x: x, y: y) }
        // The summary adds the same shares in another order: a few samples may differ in
        // their last bits, and a pixel on a threshold by a level.
        var differing = 0, largest = 0
        for i in whole.components.indices where whole.components[i] != tiled.components[i] {
            differing += 1
            largest = max(largest, abs(Int(whole.components[i]) - Int(tiled.components[i])))
        }
        #expect(Double(differing) / Double(whole.components.count) < 0.001 && largest <= 2, "\(differing) samples differ, by up to \(largest)")
        if !["comic", "posterize", "sepia,comic,vignette"].contains(text) { #expect(differing == 0) }
        // A comic is drawn from its summary alone: the second pass need not read the picture.
        #expect(rendering.drawReadsPixels == !text.contains("comic"))
    }

    @Test func twoStepsThatLookAtTheWholePictureCannotBeRenderedByRegions() throws {
        let recipe = FilterRecipe(steps: [try FilterStep(name: "posterize"), try FilterStep(name: "comic")])
        #expect(RegionRendering(recipe: recipe, width: 100, height: 100) == nil)
    }
}
