import Filters
import Foundation
import Testing
import TestSupport

@testable import Library

/// The trash: trashing hides an asset and keeps everything of it, restoring brings it
/// back whole, emptying deletes its files and rows and nothing else's; on either backend.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct TrashTests {
    /// A small library with one of each kind of thing a file of an asset can be: an
    /// Apple edit (sidecar and render), aux images, a Motion Photo's movie, a Live Photo,
    /// a camlib edit, and previews made for a browser.
    final class Fixture {
        let scratch: ScratchDirectory
        let library: PhotoLibrary
        let apple, portrait, motion, landscape, live: Int64

        init(_ backend: CatalogBackend) throws {
            scratch = try ScratchDirectory()
            library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL())
            let files = [
                "apple-misc/IMG_4120.JPG", "apple-misc/IMG_4120.AAE", "apple-misc/IMG_E4120.JPG", "apple-portrait-heic/pug.heic",
                "android-depth-motion/motion_photo.jpeg", "orientation/Landscape_1.jpg", "apple-live-photo/IMG_4394.HEIC",
                "apple-live-photo/IMG_4394.mov",
            ]
            let report = try Importer(library: library).run(paths: files.map { Media.path($0) })
            #expect(report.errors.isEmpty, "\(report.errors)")
            let library = library
            let id = { (file: String) throws -> Int64 in try library.findAsset(Media.path(file)) }
            (apple, portrait, motion) = (try id(files[0]), try id(files[3]), try id(files[4]))
            (landscape, live) = (try id(files[5]), try id(files[6]))
            _ = try library.edit(asset: landscape, steps: [try FilterStep(parsing: "mono")], extending: false)
            for asset in [landscape, portrait, apple] {
                let shown = try #require(try library.describe([asset]).first?.resources.first { $0.role == .photo || $0.role == .renderedPhoto })
                let resource = try #require(try library.catalog.read { db in
                    try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE sha256 = \(shown.sha256)")
                })
                _ = try library.displayFile(asset: asset, resource: resource, kind: .preview)
            }
        }

        /// Every file under the library folder but the catalog's and tmp/, relative.
        func files() throws -> Set<String> {
            var found: Set<String> = []
            let root = library.root.path
            let walker = FileManager.default.enumerator(atPath: root)
            while let path = walker?.nextObject() as? String {
                var isFolder: ObjCBool = false
                FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder)
                if !isFolder.boolValue, !path.hasPrefix("catalog.sqlite"), !path.hasPrefix("tmp/"),
                    ![".camlib-create.lock", ".catalog.sqlite.lock", "catalog.url"].contains(path) { found.insert(path) }
            }
            return found
        }

        /// Every asset id the library lists.
        func listed(trashed: Bool = false) throws -> [Int64] {
            var query = AssetQuery()
            (query.sort, query.trashed) = (.id, trashed)
            return try library.assetIDs(matching: query)
        }
    }

    @Test(arguments: CatalogBackend.allCases) func trashingHidesAnAssetAndRestoringBringsItBackWhole(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let all = try f.listed()
        let files = try f.files()
        let before = try f.library.describe([f.landscape, f.live, f.apple])
        let changes = try f.library.trash([f.landscape, f.live, f.apple])
        #expect(changes.map(\.outcome) == [.trashed, .trashed, .trashed])
        #expect(try f.listed() == all.filter { ![f.landscape, f.live, f.apple].contains($0) })
        #expect(try f.listed(trashed: true) == [f.landscape, f.live, f.apple].sorted())
        // Found by name, where names are read from their own table (0011), too.
        var byName = AssetQuery()
        byName.name = "IMG_4*"
        #expect(try f.library.assetIDs(matching: byName) == [])
        byName.trashed = true
        #expect(try f.library.assetIDs(matching: byName).sorted() == [f.live, f.apple].sorted())
        // Everything is kept, and says where it is.
        #expect(try f.files() == files)
        let trashed = try f.library.describe([f.landscape, f.live, f.apple])
        #expect(trashed.allSatisfy { $0.trashedAt == changes[0].trashedAt })
        #expect(trashed.map { var a = $0; a.trashedAt = nil; return a } == before)
        // A trashed asset is not changed.
        #expect(throws: LibraryError.inTrash(asset: f.landscape, trashedAt: changes[0].trashedAt!)) {
            try f.library.edit(asset: f.landscape, steps: [try FilterStep(parsing: "sepia")], extending: false)
        }
        #expect(throws: LibraryError.self) { try f.library.revert(asset: f.landscape) }
        // Which of many ids are in the trash: more than one statement's list of them.
        let many = Set(all + (1...1_100).map { Int64(100_000 + $0) })
        #expect(try f.library.trashed(among: many) == [f.landscape, f.live, f.apple].sorted())
        #expect(try f.library.trashed(among: [f.portrait, f.live]) == [f.live])
        #expect(try f.library.trash([f.live]).map(\.outcome) == [.alreadyInTrash])
        #expect(throws: LibraryError.assetNotFound("with id 999")) { try f.library.trash([f.portrait, 999]) }
        #expect(try f.listed().contains(f.portrait), "a batch with a missing asset changes nothing")
        try CatalogChecks.expectSummaryAgrees(f.library)

        #expect(try f.library.restore([f.landscape, f.live, f.apple, f.portrait]).map(\.outcome) == [.restored, .restored, .restored, .notInTrash])
        #expect(try f.listed() == all)
        #expect(try f.library.describe([f.landscape, f.live, f.apple]) == before)
        #expect(try f.library.trashContents().isEmpty)
        #expect(try f.library.revert(asset: f.landscape))
        try CatalogChecks.expectSummaryAgrees(f.library)
    }

    @Test(arguments: CatalogBackend.allCases) func emptyingDeletesTheTrashedAssetsFilesAndRowsAndNothingElse(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let doomed = [f.landscape, f.portrait, f.live]
        let kept = [f.apple, f.motion]
        let keptFiles = try Self.namedFiles(of: kept, f.library)
        let doomedOriginals = try f.library.describe(doomed).flatMap(\.resources).filter { $0.role.isPrimaryOriginal }.map(\.path)
        let auxPath = try #require(try f.library.describe([f.portrait]).first?.aux.compactMap(\.path).first)
        let auxFolder = URL(fileURLWithPath: auxPath).deletingLastPathComponent()
        _ = try f.library.trash(doomed)
        let files = try f.files()

        let plan = try f.library.emptyTrash(dryRun: true)
        #expect(plan.assets == doomed.sorted() && plan.files > 10 && plan.problems.isEmpty, "\(plan) \(doomed)")
        #expect(try f.files() == files && f.library.trashContents().count == 3, "a dry run changes nothing")

        let report = try f.library.emptyTrash()
        #expect(report.assets == plan.assets && report.files == plan.files && report.bytes == plan.bytes && report.problems.isEmpty)
        let left = try f.files()
        #expect(files.subtracting(left).count == report.files)
        for path in doomedOriginals { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        #expect(!FileManager.default.fileExists(atPath: auxFolder.path), "the still's aux folder goes with it")
        // Nothing of what is kept went, and nothing is left that no one names.
        for path in keptFiles { #expect(left.contains(path), "\(path) of a kept asset") }
        let unnamed = try f.library.catalog.read { db in
            try left.filter { path in
                let sha = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                let named = try db.fetchOne(
                    Bool.self, "SELECT EXISTS (SELECT 1 FROM resource WHERE path = \(path)) OR EXISTS (SELECT 1 FROM aux_image WHERE path = \(path))")!
                let cache = try db.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM resource WHERE sha256 = \(sha))")!
                let madeFromBytes = ["derived/previews/", "derived/proxies/", "derived/thumbnails/"].contains { path.hasPrefix($0) }
                return !named && !(madeFromBytes && cache)
            }
        }
        #expect(unnamed.isEmpty, "left behind: \(unnamed.sorted())")
        // And no row names a deleted asset.
        try f.library.catalog.read { db in
            for table in ["asset_summary", "resource", "aux_image", "adjustment", "asset_version", "pairing", "trashed_asset", "asset_file_name"] {
                let rows = try db.fetchOne(Int.self, "SELECT count(*) FROM \(CatalogSQL(sql: table)) WHERE asset_id IN \(doomed)")
                #expect(rows == 0, "\(table)")
            }
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM asset") == kept.count)
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM metadata WHERE resource_id NOT IN (SELECT id FROM resource)") == 0)
            // PostgreSQL checks every foreign key as it writes; SQLite, when asked.
            if db.dialect == .sqlite { #expect(try db.rows("PRAGMA foreign_key_check").isEmpty) }
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM file_removal") == 0)
        }
        try CatalogChecks.expectSummaryAgrees(f.library)
        let verified = try f.library.verify(quick: false)
        #expect(verified.sound, "\(verified.problems)")
        #expect(try f.library.emptyTrash().assets.isEmpty)
        // The originals can come in again, as new assets.
        let again = try Importer(library: f.library).run(paths: [Media.path("orientation/Landscape_1.jpg")])
        #expect(again.assetsCreated == 1 && again.duplicates == 0)
    }

    @Test(arguments: CatalogBackend.allCases) func olderThanEmptiesOnlyWhatWentIntoTheTrashLongerAgo(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        _ = try f.library.trash([f.landscape, f.apple])
        try f.library.catalog.write { db in
            try db.execute("UPDATE trashed_asset SET trashed_at = '2020-01-01T00:00:00.000Z' WHERE asset_id = \(f.apple)")
        }
        let report = try f.library.emptyTrash(before: Date(timeIntervalSinceNow: -30 * 86400))
        #expect(report.assets == [f.apple])
        #expect(try f.library.trashContents().map(\.asset) == [f.landscape])
        #expect(try f.library.describe([f.landscape]).first?.trashedAt != nil)
        try CatalogChecks.expectSummaryAgrees(f.library)
    }

    /// Files listed for removal by an emptying that did not finish (its rows committed,
    /// the process gone) are removed by the next; what a row names again, or what lies
    /// outside the library, is not.
    @Test(arguments: CatalogBackend.allCases) func anUnfinishedEmptyingIsFinishedAndNothingNamedOrOutsideIsDeleted(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let orphan = "derived/previews/ff/" + String(repeating: "f", count: 64) + ".jpg"
        try FileManager.default.createDirectory(at: f.library.absolute("derived/previews/ff"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: f.library.absolute(orphan))
        let outside = f.scratch.file("outside.txt")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        let original = try #require(try f.library.describe([f.apple]).first?.primaryOriginal?.path)
        let named = f.library.layout.relative(URL(fileURLWithPath: original))
        try f.library.catalog.write { db in try FileRemovalRecord.queue([orphan, named, "../outside.txt", "/etc/hostname"], db) }

        let report = try f.library.emptyTrash()
        #expect(report.files == 1 && report.bytes == 1, "\(report)")
        #expect(!FileManager.default.fileExists(atPath: f.library.absolute(orphan).path))
        #expect(FileManager.default.fileExists(atPath: original) && FileManager.default.fileExists(atPath: outside))
        #expect(report.problems.count == 2 && report.problems.allSatisfy { $0.contains("not a path inside the library") }, "\(report.problems)")
        #expect(try f.library.catalog.read { db in try FileRemovalRecord.pending(db) }.isEmpty)
    }

    /// The files the catalog names for these assets (relative paths).
    static func namedFiles(of assets: [Int64], _ library: PhotoLibrary) throws -> [String] {
        try library.describe(assets).flatMap { $0.resources.map(\.path) + $0.aux.compactMap(\.path) }.map {
            library.layout.relative(URL(fileURLWithPath: $0))
        }
    }
}
