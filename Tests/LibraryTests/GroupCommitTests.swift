import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// The import commits the files that arrived together in one transaction
/// (`ImportSession.commitMedia(_:into:)`): each file still succeeds or fails on its own,
/// and a file that fails leaves nothing behind, in the catalog or on disk.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct GroupCommitTests {
    /// The library's files under `folder` (relative paths, sorted).
    static func files(under folder: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let next = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(next).path, isDirectory: &isFolder), !isFolder.boolValue {
                found.append(next)
            }
        }
        return found.sorted()
    }

    static func analyze(_ path: String, into library: PhotoLibrary) throws -> MediaAnalysis {
        guard case .analyzed(let a) = MediaAnalyzer.analyze(path: path, stagingDirectory: library.temporary) else {
            throw LibraryError.io(path: path, operation: "analyse", errno: EINVAL)
        }
        return a
    }

    @Test func eachFileOfAGroupSucceedsOrFailsOnItsOwnAndAFailureLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let copy = scratch.url.appendingPathComponent("IMG_4120 copy.JPG").path
        try FileManager.default.copyItem(atPath: Media.path("apple-misc/IMG_4120.JPG"), toPath: copy)

        let jpeg = try Self.analyze(Media.path("apple-misc/IMG_4120.JPG"), into: library)
        // Its rows break a CHECK of the catalog: its original is linked, then must go.
        var broken = try Self.analyze(Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg"), into: library)
        broken.metadata.orientation = 99
        let heic = try Self.analyze(Media.path("apple-misc/iphone_7.heic"), into: library)
        // Its staged copy vanished before the commit: it cannot be made durable.
        let vanished = try Self.analyze(Media.path("apple-portrait-heic/IMG_4076.HEIC"), into: library)
        unlink(vanished.stagedCopy)
        // The same bytes as the first file, in the same group: a duplicate of it.
        let duplicate = try Self.analyze(copy, into: library)

        var session = ImportSession(library: library)
        var report = ImportReport(library: library.root.path)
        session.commitMedia([jpeg, broken, heic, vanished, duplicate], into: &report)

        #expect(report.imported == 2 && report.duplicates == 1 && report.assetsCreated == 2, "\(report)")
        #expect(report.errors.map(\.path) == [broken.path, vanished.path])
        #expect(report.errors.first?.message.contains("CHECK constraint failed") == true, "\(report.errors)")
        #expect(report.errors.last?.message.contains(vanished.stagedCopy) == true, "\(report.errors)")
        // Two originals and their two thumbnails, nothing of the failed files, and no
        // staged file left in tmp/.
        let originals = Self.files(under: library.root.appendingPathComponent("originals"))
        #expect(originals.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted() == ["IMG_4120.JPG", "iphone_7.heic"])
        #expect(Self.files(under: library.root.appendingPathComponent("derived/thumbnails")).count == 2)
        #expect(Self.files(under: library.temporary).isEmpty)
        let rows = try library.catalog.sqliteRead { db in
            try String.fetchAll(db, sql: "SELECT original_name FROM resource WHERE role = 'photo' ORDER BY asset_id")
        }
        #expect(rows == ["IMG_4120.JPG", "iphone_7.heic"])
        #expect(try library.verify(quick: false).problems.isEmpty)
    }
}
