import Foundation
import Testing
import TestSupport

@testable import Library

/// Capture's hand-over to the library (`PhotoLibrary.importCaptures`), without a camera:
/// files placed in a staging folder as a capture writes them.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct CaptureImportTests {
    static func place(_ source: String, in folder: URL, as name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Media.path(source), toPath: path)
        return path
    }

    @Test func stagedFilesAreImportedAndRemovedAndWhatFailsStays() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let staging = try library.newCaptureStaging()
        _ = try Self.place("apple-live-photo/IMG_3582.HEIC", in: staging, as: "CAM_1_001.HEIC")
        _ = try Self.place("apple-live-photo/IMG_3582.mov", in: staging, as: "CAM_1_001.MOV")
        let broken = staging.appendingPathComponent("CAM_1_002.HEIC").path
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: broken))
        // A file still being written is not the import's.
        let writing = staging.appendingPathComponent("CAM_1_003.HEIC.part").path
        try Data([0, 1, 2]).write(to: URL(fileURLWithPath: writing))

        let outcome = try library.importCaptures(from: staging)
        let report = try #require(outcome.report)
        #expect(report.imported == 2 && report.livePhotosPaired == 1 && report.assetIDs.count == 1, "\(report)")
        #expect(report.errors.map(\.path) == [broken] && outcome.keptFiles == [broken] && !outcome.succeeded)
        let left = try FileManager.default.contentsOfDirectory(atPath: staging.path).sorted()
        #expect(left == ["CAM_1_002.HEIC", "CAM_1_003.HEIC.part"])
        let asset = try library.describe(report.assetIDs)[0]
        #expect(asset.kind == .live)
    }

    @Test func anInterruptedCapturesFilesComeInWithTheNextAndTheirFolderGoes() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        // A staging folder whose process is gone (pid 2^22 + 1 is above Linux's pid_max).
        let abandoned = library.captureStaging.appendingPathComponent("4194305-deadbeef")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: true)
        let left = try Self.place("apple-misc/IMG_4120.JPG", in: abandoned, as: "CAM_0_001.JPG")
        try Data([0]).write(to: abandoned.appendingPathComponent("CAM_0_002.HEIC.part"))
        let leftovers = library.abandonedCaptureFiles()
        #expect(leftovers == [left])

        let staging = try library.newCaptureStaging()
        _ = try Self.place("apple-misc/iphone_7.heic", in: staging, as: "CAM_1_001.HEIC")
        let outcome = try library.importCaptures(from: staging, leftovers: leftovers)
        #expect(outcome.succeeded && outcome.report?.imported == 2)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path) && !FileManager.default.fileExists(atPath: staging.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.captureStaging.path).isEmpty)
    }

    @Test func anEmptyStagingFolderImportsNothingAndGoes() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let staging = try library.newCaptureStaging()
        let outcome = try library.importCaptures(from: staging)
        #expect(outcome.report == nil && outcome.succeeded && !FileManager.default.fileExists(atPath: staging.path))
    }
}
