import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// `import --dry-run`: the import rehearsed on a copy of the catalog says what the import
/// then does, and leaves the library as it was.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct DryRunImportTests {
    @Test func aRehearsedImportReportsWhatTheImportDoesAndChangesNothing() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        // Already in: two stills, and the still of a Live Photo whose movie comes later.
        _ = try Importer(library: library).run(paths: ["orientation/Landscape_1.jpg", "orientation/Landscape_2.jpg", "apple-live-photo/IMG_3582.HEIC"].map { Media.path($0) })
        _ = try library.trash([try library.findAsset(Media.path("orientation/Landscape_2.jpg"))])
        // The batch: the movie joining that still, a Live Photo whose halves are both new
        // (paired within the batch), Apple's sidecars, a duplicate, a trashed duplicate,
        // a new still, a damaged file and a file camlib does not import.
        let input = try scratch.subdirectory("in")
        try Data(repeating: 0xFF, count: 2).write(to: input.appendingPathComponent("broken.jpg"))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: input.appendingPathComponent("cut.jpg"))
        try Data("notes".utf8).write(to: input.appendingPathComponent("notes.txt"))
        let paths = [Media.path("apple-live-photo"), Media.path("orientation/Landscape_1.jpg"), Media.path("orientation/Landscape_2.jpg"),
                     Media.path("orientation/Landscape_3.jpg"), input.path]

        let before = try Snapshot(library)
        let rehearsed = try Importer(library: try library.rehearsing()).run(paths: paths)
        let after = try Snapshot(library)
        #expect(after.files == before.files, "files: \(Set(after.files.keys).symmetricDifference(before.files.keys))")
        #expect(after.rows == before.rows, "rows: \(after.rows.keys.filter { after.rows[$0] != before.rows[$0] })")
        #expect(rehearsed.dryRun)

        let real = try Importer(library: library).run(paths: paths)
        #expect(!real.dryRun)
        #expect(try comparable(rehearsed) == comparable(real))
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.temporary.path).isEmpty, "staged files left in tmp/")
        #expect(real.livePhotosPaired >= 2 && real.attached > 0 && real.duplicates == 3 && !real.errors.isEmpty && real.skipped > 0,
                "the batch holds every case: \(real)")
        #expect(real.assetsInTrash.count == 1)
    }

    /// The report without what differs by nature: its time, and whether it was rehearsed.
    private func comparable(_ report: ImportReport) throws -> String {
        var report = report
        report.seconds = 0
        report.dryRun = false
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }

    /// Every file of the library with its bytes' hash, and every row of every table.
    private struct Snapshot: Equatable {
        var files: [String: String] = [:]
        var rows: [String: [String]] = [:]

        init(_ library: PhotoLibrary) throws {
            let root = library.root.path
            let enumerator = FileManager.default.enumerator(atPath: root)
            while let relative = enumerator?.nextObject() as? String {
                let path = root + "/" + relative
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                    !relative.hasPrefix(LibraryLayout.catalogName)
                else { continue }
                files[relative] = try FileReading.sha256(of: path)
            }
            rows = try library.catalog.sqliteRead { db in
                var rows: [String: [String]] = [:]
                for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                    rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map(\.description)
                }
                return rows
            }
        }
    }
}
