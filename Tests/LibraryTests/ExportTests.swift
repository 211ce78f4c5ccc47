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
        // Exported again: the files there already are its own, not copied again as -2.
        let liveAsset = try library.describe([live])[0]
        let inode = { (path: String) in (try FileManager.default.attributesOfItem(atPath: path))[.systemFileNumber] as? Int }
        let inodes = try liveFiles.map(inode)
        #expect(try Exporter.export(liveAsset, from: library, to: out, originalOnly: true) == liveFiles)
        #expect(try liveFiles.map(inode) == inodes && FileManager.default.contentsOfDirectory(atPath: out.path).count == 5)
        // Names taken by other bytes: the next stem, never an overwrite.
        let taken = try scratch.subdirectory("taken")
        try Data("other".utf8).write(to: taken.appendingPathComponent("51F2BEF7-431A-4D31-8AC1-3284A57826AE.mov"))
        #expect(try Exporter.export(liveAsset, from: library, to: taken, originalOnly: true).map { URL(fileURLWithPath: $0).lastPathComponent }
            == ["51F2BEF7-431A-4D31-8AC1-3284A57826AE-2.jpeg", "51F2BEF7-431A-4D31-8AC1-3284A57826AE-2.mov"])
        #expect(try String(contentsOf: taken.appendingPathComponent("51F2BEF7-431A-4D31-8AC1-3284A57826AE.mov"), encoding: .utf8) == "other")
        // An export cut short (the still written, the movie not, a temporary left): the
        // next one completes it under the same stem and clears the temporary.
        let half = try scratch.subdirectory("half")
        try FileManager.default.copyItem(atPath: liveFiles[0], toPath: half.appendingPathComponent("51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg").path)
        let abandoned = half.appendingPathComponent("2147483646-\(UUID().uuidString).part")
        let notOurs = half.appendingPathComponent("12-notes.part")
        for file in [abandoned, notOurs] { try Data("x".utf8).write(to: file) }
        Exporter.removeAbandonedTemporaries(in: half)
        let completed = try Exporter.export(liveAsset, from: library, to: half, originalOnly: true)
        #expect(completed.map { URL(fileURLWithPath: $0).lastPathComponent } == liveFiles.map { URL(fileURLWithPath: $0).lastPathComponent })
        #expect(try FileReading.sha256(of: completed[1]) == (try FileReading.sha256(of: liveFiles[1])))
        #expect(!FileManager.default.fileExists(atPath: abandoned.path) && FileManager.default.fileExists(atPath: notOurs.path))

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

    /// Apple's sidecars go with their asset whatever edit is current, and come back with it;
    /// under a camlib edit Apple's edit sidecar travels inside the history, never as a file
    /// beside camlib's render (by Apple's naming `IMG_4120.AAE` describes `IMG_E4120.*`).
    @Test func appleSidecarsTravelWithTheirAssetUnderACamlibEdit() throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(["apple-misc/IMG_4120.JPG", "apple-misc/IMG_4120.AAE", "apple-misc/IMG_E4120.JPG"], in: scratch)
        let id = try library.findAsset(Media.path("apple-misc/IMG_4120.JPG"))
        let edit = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let out = try scratch.subdirectory("out")
        let files = try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: false)
        #expect(files.map { URL(fileURLWithPath: $0).lastPathComponent } == ["IMG_4120.JPG", "IMG_E4120.jpg", "IMG_4120.camlib.json"])
        #expect(try FileReading.sha256(of: files[1]) == (try FileReading.sha256(of: edit.renders[0])))
        let other = try PhotoLibrary(root: scratch.url.appendingPathComponent("other"), mode: .create)
        #expect(try Importer(library: other).run(paths: [out.path]).errors.isEmpty)
        let restored = try other.describe([try other.findAsset(files[0])])[0]
        #expect(restored.adjustments.map(\.formatIdentifier) == ["com.apple.photo", "org.camlib.filters"])
        #expect(restored.adjustments.last?.current == true)
        #expect(restored.resources.filter { $0.role == .adjustmentSidecar }.map(\.originalName) == ["IMG_4120.AAE"])
        #expect(restored.resources.first { $0.role == .adjustmentSidecar }?.sha256 == (try FileReading.sha256(of: Media.path("apple-misc/IMG_4120.AAE"))))
        #expect(restored.resources.first { $0.role == .renderedPhoto }?.sha256 == (try FileReading.sha256(of: edit.renders[0])))
        #expect(try other.verify(quick: false).sound)
    }

    /// An edited Live Photo whose original came with Apple's edit (IMG_3582.AAE) and the
    /// camera's adjustments (IMG_O3582.aae): exported and imported into a new library, its
    /// camlib edit is current with its own rendered still and movie, not Apple's; a second
    /// export writes them again; nothing pairs Apple's sidecar with camlib's render; and
    /// `--original` keeps the camera's sidecar with the original.
    @Test func anEditedLivePhotoKeepsItsRenderThroughExportAndImport() throws {
        let scratch = try ScratchDirectory()
        let names = ["IMG_3582.HEIC", "IMG_3582.mov", "IMG_3582.AAE", "IMG_O3582.aae"]
        let library = try EditTests.library(names.map { "apple-live-photo/\($0)" }, in: scratch)
        let id = try library.findAsset(Media.path("apple-live-photo/IMG_3582.HEIC"))
        let edit = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        #expect(edit.renders.count == 2)
        let out = try scratch.subdirectory("out")
        let files = try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: false)
            .map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(files == ["IMG_3582.HEIC", "IMG_3582.mov", "IMG_E3582.heic", "IMG_E3582.mov", "IMG_O3582.aae", "IMG_3582.camlib.json"], "\(files)")

        let other = try PhotoLibrary(root: scratch.url.appendingPathComponent("other"), mode: .create)
        let report = try Importer(library: other).run(paths: [out.path])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let restored = try other.describe([try other.findAsset(out.appendingPathComponent("IMG_3582.HEIC").path)])[0]
        #expect(restored.kind == .live)
        #expect(restored.adjustments.last { $0.current }?.formatIdentifier == "org.camlib.filters")
        let renders = Dictionary(uniqueKeysWithValues: restored.resources.filter { ResourceRole.renders.contains($0.role) }.map { ($0.role, $0.sha256) })
        #expect(renders[.renderedPhoto] == (try FileReading.sha256(of: edit.renders[0])))
        #expect(renders[.renderedVideo] == (try FileReading.sha256(of: edit.renders[1])))
        #expect(Set(restored.resources.filter { $0.role == .adjustmentSidecar }.compactMap(\.originalName)) == ["IMG_3582.AAE", "IMG_O3582.aae"])
        #expect(try other.verify(quick: false).sound)
        // Exported again from the new library: the same files, the render included.
        let again = try Exporter.export(restored, from: other, to: try scratch.subdirectory("again"), originalOnly: false)
        #expect(again.map { URL(fileURLWithPath: $0).lastPathComponent } == files)
        // The original alone keeps the camera's adjustments, never Apple's edit.
        let originals = try Exporter.export(restored, from: other, to: try scratch.subdirectory("originals"), originalOnly: true)
        #expect(originals.map { URL(fileURLWithPath: $0).lastPathComponent } == ["IMG_3582.HEIC", "IMG_3582.mov", "IMG_O3582.aae"])
    }

    /// A current edit that lost the link to its render (as an import of an older export
    /// left it) is found by verify and rendered again by repair.
    @Test func verifyFindsACurrentEditWithoutItsRenderAndRepairRendersIt() throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(["orientation/Landscape_1.jpg"], in: scratch)
        let id = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        let edit = try library.edit(asset: id, steps: [try FilterStep(parsing: "sepia")], extending: false)
        #expect(try library.verify(quick: true).sound)
        try library.catalog.sqliteWrite { db in try db.execute(sql: "DELETE FROM adjustment_render WHERE adjustment_id = ?", arguments: [edit.adjustmentID]) }
        let problems = try library.verify(quick: true).problems
        #expect(problems.map(\.kind) == [.unrendered] && problems.first?.asset == id, "\(problems)")
        #expect(try library.repair(dryRun: true).actions.map(\.kind) == [.rebuilt])
        let repaired = try library.repair().actions
        #expect(repaired.map(\.kind) == [.rebuilt], "\(repaired)")
        #expect(try library.verify(quick: false).sound)
        let described = try library.describe([id])[0]
        #expect(described.resources.first { $0.role == .renderedPhoto }?.sha256 == (try FileReading.sha256(of: edit.renders[0])))
        #expect(described.adjustments.count == 1, "no new adjustment: the current one got its render back")
    }

    /// Exported files carry the capture time; a dry run says what a real run writes.
    @Test func exportedFilesCarryTheCaptureTimeAndADryRunWritesNothing() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-live-photo/IMG_4394.HEIC", "apple-live-photo/IMG_4394.mov"]
        let library = try EditTests.library(files, in: scratch)
        let asset = try library.describe([try library.findAsset(Media.path(files[0]))])[0]
        #expect(asset.capturedAt == "2025-08-06T17:14:22.332-05:00")
        let out = scratch.url.appendingPathComponent("out")
        let planned = try Exporter.export(asset, from: library, to: out, originalOnly: false, dryRun: true)
        #expect(planned.map { URL(fileURLWithPath: $0).lastPathComponent } == ["IMG_4394.HEIC", "IMG_4394.mov"])
        #expect(!FileManager.default.fileExists(atPath: out.path), "a dry run writes nothing")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        #expect(try Exporter.export(asset, from: library, to: out, originalOnly: false) == planned)
        for path in planned {
            let modified = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            // 2025-08-06T22:14:22.332Z
            #expect(abs(modified.timeIntervalSince1970 - 1_754_518_462.332) < 0.01, "\(path): \(modified)")
        }
        #expect(try Exporter.export(asset, from: library, to: out, originalOnly: false, dryRun: true) == [], "all there already")
    }

    /// --folder and --filename templates: files where the template says, under names that
    /// import still recognises (Apple's sidecars and renders keep their letters).
    @Test func templatesPlaceAndNameTheFilesAndImportStillReadsThem() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-misc/IMG_4120.JPG", "apple-misc/IMG_4120.AAE", "apple-misc/IMG_E4120.JPG", "apple-live-photo/IMG_4394.HEIC", "apple-live-photo/IMG_4394.mov"]
        let library = try EditTests.library(files, in: scratch)
        try library.createAlbum("a/b")
        let apple = try library.findAsset(Media.path(files[0])), live = try library.findAsset(Media.path(files[3]))
        _ = try library.addToAlbum("a/b", [live])
        let naming = Exporter.Naming(folder: try ExportTemplate("{created:%Y}/{album}"), filename: try ExportTemplate("{created:%Y%m%d-%H%M}_{name}"))
        let out = try scratch.subdirectory("out")
        var written: [String] = []
        for id in [apple, live] { written += try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: false, naming: naming) }
        let relative = written.map { String($0.dropFirst(out.path.count + 1)) }
        #expect(relative == [
            "2019/no album/20190609-1257_IMG_4120.JPG", "2019/no album/20190609-1257_IMG_E4120.JPG", "2019/no album/20190609-1257_IMG_4120.AAE",
            "2025/a_b/20250806-1714_IMG_4394.HEIC", "2025/a_b/20250806-1714_IMG_4394.mov",
        ], "\(relative)")
        let other = try PhotoLibrary(root: scratch.url.appendingPathComponent("other"), mode: .create)
        let report = try Importer(library: other).run(paths: [out.path])
        #expect(report.errors.isEmpty && report.skipped == 0, "\(report.errors) \(report.skippedFiles)")
        let restored = try other.describe([try other.findAsset(written[0])])[0]
        #expect(restored.resources.map(\.role).contains(.adjustmentSidecar) && restored.resources.map(\.role).contains(.renderedPhoto))
        #expect(try other.describe([try other.findAsset(written[3])])[0].kind == .live)
        // Mistakes are said.
        #expect(throws: ExportTemplateError.self) { try ExportTemplate("{nmae}") }
        #expect(throws: ExportTemplateError.self) { try ExportTemplate("{name:%Y}") }
        #expect(throws: ExportTemplateError.self) { try ExportTemplate("{created") }
        #expect(ExportTemplate.safe("..") == "_" && ExportTemplate.safe("a/b") == "a_b")
    }

    /// `--update`: a changed edit's render and history replace what an earlier export
    /// wrote, nothing else is written again, and a file someone changed is never replaced.
    @Test func updateReplacesWhatChangedAndOnlyWhatAnEarlierExportWrote() throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(["orientation/Landscape_1.jpg"], in: scratch)
        let id = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let out = try scratch.subdirectory("out")
        func export(update: Bool) throws -> [String] {
            let manifest = ExportManifest(folder: out)
            defer { try? manifest.save() }
            return try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: false, manifest: manifest, update: update)
                .map { URL(fileURLWithPath: $0).lastPathComponent }
        }
        #expect(try export(update: false) == ["Landscape_1.jpg", "Landscape_E1.jpg", "Landscape_1.camlib.json"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(ExportManifest.name).path))
        let inode = { (name: String) in (try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(name).path))[.systemFileNumber] as? Int }
        let original = try inode("Landscape_1.jpg")
        // The edit changes: --update replaces its render and history in place.
        let sepia = try library.edit(asset: id, steps: [try FilterStep(parsing: "sepia")], extending: false)
        #expect(try export(update: true) == ["Landscape_1.jpg", "Landscape_E1.jpg", "Landscape_1.camlib.json"])
        #expect(try FileReading.sha256(of: out.appendingPathComponent("Landscape_E1.jpg").path) == (try FileReading.sha256(of: sepia.renders[0])))
        #expect(try inode("Landscape_1.jpg") == original, "the original, unchanged, is not written again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).count == 4)
        // Without --update a changed asset goes beside, as before.
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "noir")], extending: false)
        #expect(try export(update: false) == ["Landscape_1-2.jpg", "Landscape_E1-2.jpg", "Landscape_1-2.camlib.json"])
        // A render someone changed since is theirs: never replaced, even with --update.
        let edited = out.appendingPathComponent("Landscape_E1-2.jpg")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: edited.path)
        let handle = try #require(FileHandle(forWritingAtPath: edited.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("mine".utf8))
        try handle.close()
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "posterize")], extending: false)
        let updated = try export(update: true)
        #expect(updated == ["Landscape_1.jpg", "Landscape_E1.jpg", "Landscape_1.camlib.json"], "the first stem's files are camlib's and unchanged")
        #expect(try String(decoding: Data(contentsOf: edited).suffix(4), as: UTF8.self) == "mine")
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
