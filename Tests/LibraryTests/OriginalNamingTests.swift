import Foundation
import Testing
import TestSupport

@testable import Library

/// Where an imported original lands: under its own name in its capture month, or
/// `NAME-2.EXT` when that name is taken, by a file or by a row; on either backend.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct OriginalNamingTests {
    /// A row whose file went missing (moved away behind camlib's back) keeps its name: a
    /// new file of the same name and month goes to `NAME-2`, and the row still names the
    /// missing file, so `verify` reports it missing rather than holding other bytes.
    @Test(arguments: CatalogBackend.allCases) func aNameARowHoldsIsTakenEvenWhenItsFileIsMissing(on backend: CatalogBackend) throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL("naming"))
        let source = Media.path("orientation/Landscape_1.jpg")
        #expect(try Importer(library: library).run(paths: [source]).errors.isEmpty)
        let first = try library.findAsset(source)
        let missing = try #require(try library.describe([first])[0].primaryOriginal?.path)
        try FileManager.default.removeItem(atPath: missing)

        // The same photo made a different file: a JPEG comment after its SOI marker.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let comment = Array("another copy".utf8)
        bytes.insert(contentsOf: [0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment, at: 2)
        let other = scratch.url.appendingPathComponent("card/Landscape_1.jpg")
        try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: other)

        let report = try Importer(library: library).run(paths: [other.path])
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.imported == 1)
        let second = try #require(try library.describe([try library.findAsset(other.path)])[0].primaryOriginal?.path)
        #expect(URL(fileURLWithPath: second).lastPathComponent == "Landscape_1-2.jpg")
        #expect(URL(fileURLWithPath: second).deletingLastPathComponent() == URL(fileURLWithPath: missing).deletingLastPathComponent())
        #expect(try library.describe([first])[0].primaryOriginal?.path == missing)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
