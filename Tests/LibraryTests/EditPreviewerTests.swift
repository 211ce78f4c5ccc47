import Codecs
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// The gallery editor's previews: the same pixels as a preview made afresh, and the
/// asset's decoded picture kept for the next change, until other assets push it out.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct EditPreviewerTests {
    @Test func aChangeReusesTheDecodedPictureUntilOtherAssetsPushItOut() throws {
        let scratch = try ScratchDirectory()
        let files = ["orientation/Landscape_2.jpg", "orientation/Landscape_3.jpg", "orientation/Landscape_4.jpg"]
        let library = try EditTests.library(files, in: scratch)
        let ids = try files.map { try library.findAsset(Media.path($0)) }
        let previewer = EditPreviewer(library: library, capacity: 2)
        let steps = [try FilterStep(parsing: "exposure:ev=1")]
        let first = try previewer.preview(asset: ids[0], steps: steps)
        #expect(first == (try library.editPreview(asset: ids[0], steps: steps)))

        // The preview file blackened underneath: the previewer keeps the picture it decoded,
        // where a preview made afresh reads the black one.
        let file = try library.displayFile(asset: ids[0], resource: try library.editPreviewSource(asset: ids[0]), kind: .preview)
        let shown = try JPEGCodec.decode([UInt8](Data(contentsOf: file.url))).pixels
        try Data(try JPEGCodec.encode(PixelBuffer<UInt8>(width: shown.width, height: shown.height, channels: 3))).write(to: file.url)
        #expect(try previewer.preview(asset: ids[0], steps: steps) == first)
        func brightness(_ jpeg: [UInt8]) throws -> Double {
            let pixels = try JPEGCodec.decode(jpeg).pixels
            return Double(pixels.components.reduce(0) { $0 + Int($1) }) / Double(pixels.components.count)
        }
        #expect(try brightness(try library.editPreview(asset: ids[0], steps: steps)) < 2)
        #expect(try brightness(first) > 20)

        // Two other assets later, the first has left the cache and is decoded again.
        _ = try previewer.preview(asset: ids[1], steps: [])
        #expect(try previewer.preview(asset: ids[0], steps: steps) == first, "pushed out by one asset with room for two")
        _ = try previewer.preview(asset: ids[2], steps: [])
        _ = try previewer.preview(asset: ids[1], steps: [])
        #expect(try brightness(try previewer.preview(asset: ids[0], steps: steps)) < 2)
    }
}
