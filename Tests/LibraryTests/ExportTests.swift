import Filters
import Foundation
import Testing
import TestSupport

@testable import Library

/// `camlib export`: originals byte for byte, Live Photos under one stem, edits with their
/// history, and an export that imports back into the same asset.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct ExportTests {
    @Test func exportThenImportRestoresAssetsWithTheirHistory() throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(
            ["orientation/Landscape_1.jpg", "apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg",
             "apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE_3.mov"], in: scratch)
        let photo = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        let live = try library.findAsset(Media.path("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg"))
        _ = try library.edit(asset: photo, steps: [try FilterStep(parsing: "noir")], extending: false)
        let edit = try library.edit(asset: photo, steps: [try FilterStep(parsing: "vignette")], extending: true)

        let out = try scratch.subdirectory("out")
        let photoFiles = try Exporter.export(try library.describe([photo])[0], from: library, to: out, originalOnly: false)
        #expect(photoFiles.map { URL(fileURLWithPath: $0).lastPathComponent } == ["Landscape_1.jpg", "Landscape_E1.jpg", "Landscape_1.camlib.json"])
        #expect(try FileReading.sha256(of: photoFiles[0]) == (try FileReading.sha256(of: Media.path("orientation/Landscape_1.jpg"))))
        #expect(try FileReading.sha256(of: photoFiles[1]) == (try FileReading.sha256(of: edit.renders[0])))
        // A Live Photo: still and movie under the still's stem, identifiers intact.
        let liveFiles = try Exporter.export(try library.describe([live])[0], from: library, to: out, originalOnly: false)
        #expect(liveFiles.map { URL(fileURLWithPath: $0).lastPathComponent }
            == ["51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg", "51F2BEF7-431A-4D31-8AC1-3284A57826AE.mov"])
        // Names taken: the next stem, never an overwrite.
        let again = try Exporter.export(try library.describe([live])[0], from: library, to: out, originalOnly: true)
        #expect(again.map { URL(fileURLWithPath: $0).lastPathComponent }
            == ["51F2BEF7-431A-4D31-8AC1-3284A57826AE-2.jpeg", "51F2BEF7-431A-4D31-8AC1-3284A57826AE-2.mov"])
        for file in again { try FileManager.default.removeItem(atPath: file) }

        // Import the export into a new library: the same assets, history and current edit.
        let other = try PhotoLibrary(root: scratch.url.appendingPathComponent("other"), mode: .create)
        let report = try Importer(library: other).run(paths: [out.path])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let restored = try other.describe([try other.findAsset(photoFiles[0])])[0]
        let before = try library.describe([photo])[0]
        #expect(restored.adjustments == before.adjustments)
        #expect(restored.resources.first { $0.role == .renderedPhoto }?.sha256 == before.resources.first { $0.role == .renderedPhoto }?.sha256)
        let restoredLive = try other.describe([try other.findAsset(liveFiles[0])])[0]
        #expect(restoredLive.kind == .live && restoredLive.pairing?.rule == .contentIdentifier)
        // camlib can go on editing the restored asset from its recipe.
        let resumed = try other.edit(asset: restored.id, steps: [try FilterStep(parsing: "sepia")], extending: true)
        #expect(resumed.recipe.steps.map(\.name) == ["noir", "vignette", "sepia"])
    }

    @Test func revertThenExportGivesTheOriginalsOnly() throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(["orientation/Landscape_1.jpg"], in: scratch)
        let id = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "comic")], extending: false)
        try library.revert(asset: id)
        let out = try scratch.subdirectory("out")
        let files = try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: false)
        // The history still travels (it may be resumed), but the original is what is current.
        #expect(files.map { URL(fileURLWithPath: $0).lastPathComponent } == ["Landscape_1.jpg", "Landscape_1.camlib.json"])
        #expect(try FileReading.sha256(of: files[0]) == (try FileReading.sha256(of: Media.path("orientation/Landscape_1.jpg"))))
        let original = try Exporter.export(try library.describe([id])[0], from: library, to: try scratch.subdirectory("orig"), originalOnly: true)
        #expect(original.count == 1)
    }
}
