import Containers
import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

@Test func migrationsBuildACatalogFromNothing() throws {
    let dir = try ScratchDirectory()
    let library = try PhotoLibrary(root: dir.url.appendingPathComponent("lib"), mode: .create)
    #expect(try library.catalog.appliedMigrations() == Catalog.knownMigrations)
    #expect(Catalog.knownMigrations.first == "0001_create_catalog")
    let (tables, views, journal, integrity) = try library.catalog.sqliteRead { db in
        (
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"),
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view'"),
            try String.fetchOne(db, sql: "PRAGMA journal_mode"),
            try String.fetchOne(db, sql: "PRAGMA integrity_check")
        )
    }
    for table in ["asset", "resource", "metadata", "pairing", "grdb_migrations"] { #expect(tables.contains(table), "table \(table)") }
    for view in [
        "asset_overview", "live_photo", "unpaired_live_half", "storage_by_role", "assets_by_camera", "aux_overview", "adjustment_history",
        "current_resource", "assets_with_depth",
    ] {
        #expect(views.contains(view), "view \(view)")
    }
    // The current version's files are found by index, not by scanning every render link.
    let plan = try library.catalog.sqliteRead { db in
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM current_resource WHERE asset_id = 1").map { $0["detail"] as String }
    }
    #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
    #expect(journal == "wal")
    #expect(integrity == "ok")
    for folder in ["originals", "derived/thumbnails", "tmp"] {
        #expect(FileManager.default.fileExists(atPath: library.root.appendingPathComponent(folder).path))
    }
}

@Test func reopeningAppliesNoMigrationTwice() throws {
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("lib")
    _ = try PhotoLibrary(root: root, mode: .create)
    let again = try PhotoLibrary(root: root, mode: .write)
    let count = try again.catalog.sqliteRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") }
    #expect(count == Catalog.knownMigrations.count)
}

@Test func aCatalogFromANewerCamlibIsRefused() throws {
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("lib")
    let library = try PhotoLibrary(root: root, mode: .create)
    try library.catalog.sqliteWrite { db in
        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9999_from_the_future')")
    }
    #expect(throws: LibraryError.newerCatalog(path: root.appendingPathComponent("catalog.sqlite").path, unknownMigrations: ["9999_from_the_future"])) {
        _ = try PhotoLibrary(root: root, mode: .write)
    }
}

@Test func readersDoNotCreateALibrary() throws {
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("nothing-here")
    #expect(throws: LibraryError.noLibrary(path: root.path)) { _ = try PhotoLibrary(root: root, mode: .write) }
    #expect(!FileManager.default.fileExists(atPath: root.path))
}

@Test func aFolderOfOtherFilesIsNotTakenOverAsALibrary() throws {
    let dir = try ScratchDirectory()
    try Data("notes".utf8).write(to: dir.url.appendingPathComponent("notes.txt"))
    #expect(throws: LibraryError.notALibrary(path: dir.url.path)) { _ = try PhotoLibrary(root: dir.url, mode: .create) }
}

@Test func libraryLocationFollowsFlagThenEnvironmentThenXDG() {
    #expect(LibraryLocation.resolve(explicit: "/a", environment: ["CAMLIB_LIBRARY": "/b"]).path == "/a")
    #expect(LibraryLocation.resolve(explicit: nil, environment: ["CAMLIB_LIBRARY": "/b", "XDG_DATA_HOME": "/x"]).path == "/b")
    #expect(LibraryLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).path == "/x/camlib")
    #expect(LibraryLocation.resolve(explicit: nil, environment: ["HOME": "/h"]).path == "/h/.local/share/camlib")
    // XDG says relative values are invalid and must be ignored.
    #expect(LibraryLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]).path == "/h/.local/share/camlib")
}

/// Temporary files are named after the machine and process writing them: opening the
/// library deletes this machine's whose process is gone, keeps those of processes still
/// at work, and keeps another machine's (sharing the folder) until they are a day old.
@Test func abandonedTemporaryFilesAreRemovedOnOpen() throws {
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("lib")
    _ = try PhotoLibrary(root: root, mode: .create)
    let host = ProcessInfo.processInfo.hostName
    func file(_ name: String, daysOld: Double = 0) throws -> URL {
        let url = root.appendingPathComponent("tmp/\(name)-\(UUID().uuidString).part")
        try Data([1]).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -daysOld * 86_400)], ofItemAtPath: url.path)
        return url
    }
    // PID 999999999 does not exist: these were left by a crashed import or worker.
    let stale = try file("\(host)-999999999")
    let staleUnnamed = try file("999999999")
    let live = try file("\(host)-\(getpid())")
    let liveUnnamed = try file("\(getpid())")
    let elsewhere = try file("other-machine.example-999999999", daysOld: 0.5)
    let elsewhereOld = try file("other-machine.example-999999999", daysOld: 2)
    let notOurs = root.appendingPathComponent("tmp/notes.part")
    try Data([1]).write(to: notOurs)
    _ = try PhotoLibrary(root: root, mode: .write)
    for gone in [stale, staleUnnamed, elsewhereOld] { #expect(!FileManager.default.fileExists(atPath: gone.path), "\(gone.lastPathComponent)") }
    for kept in [live, liveUnnamed, elsewhere, notOurs] { #expect(FileManager.default.fileExists(atPath: kept.path), "\(kept.lastPathComponent)") }
}

/// `AssetOverviewRecord` reads its columns by position: on the real corpus, every field
/// it reads is the view's column of that name.
@Test func theOverviewRecordReadsEachColumnWhereItIs() throws {
    let library = try CorpusLibrary.shared().library
    try library.catalog.sqliteRead { db in
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM asset_overview ORDER BY id")
        #expect(rows.count > 20)
        let records = try AssetOverviewRecord.fetchAll(ids: IDList(rows.prefix(512).map { $0["id"] }), db)
        #expect(records.count == min(rows.count, 512))
        for record in records {
            let row = try #require(rows.first { ($0["id"] as Int64) == record.id })
            let fields: [(String, DatabaseValue)] = [
                ("kind", record.kind.databaseValue), ("captured_at", record.capturedAt.databaseValue),
                ("make", record.make.databaseValue), ("model", record.model.databaseValue),
                ("lens_model", record.lensModel.databaseValue), ("width", record.width.databaseValue),
                ("height", record.height.databaseValue), ("orientation", record.orientation.databaseValue),
                ("duration", record.duration.databaseValue), ("video_codec", record.videoCodec.databaseValue),
                ("audio_codec", record.audioCodec.databaseValue), ("latitude", record.latitude.databaseValue),
                ("longitude", record.longitude.databaseValue), ("altitude", record.altitude.databaseValue),
                ("content_identifier", record.contentIdentifier.databaseValue), ("paired_by", record.pairedBy.databaseValue),
                ("pairing_confidence", record.pairingConfidence.databaseValue), ("original_name", record.originalName.databaseValue),
                ("photo_path", record.photoPath.databaseValue), ("video_path", record.videoPath.databaseValue),
                ("imported_at", record.importedAt.databaseValue),
            ]
            #expect(fields.count + 1 == AssetOverviewRecord.CodingKeys.allCases.count)
            for (column, value) in fields { #expect(value == row[column] as DatabaseValue, "asset \(record.id): \(column)") }
        }
    }
}

/// `ResourceRecord` reads its columns by position, through requests and through SQL
/// written out alike: every field is the table's column of that name.
@Test func theResourceRecordReadsEachColumnWhereItIs() throws {
    let library = try CorpusLibrary.shared().library
    try library.catalog.sqliteRead { db in
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM resource ORDER BY id")
        let viaRequest = try ResourceRecord.all().order(ResourceRecord.Columns.id).fetchAll(db)
        let assets = Array(Set(rows.map { $0["asset_id"] as Int64 })).sorted()
        let viaSQL = try stride(from: 0, to: assets.count, by: 512).flatMap {
            try ResourceRecord.fetchAll(assets: IDList(Array(assets[$0..<min($0 + 512, assets.count)])), db)
        }.sorted { $0.id! < $1.id! }
        #expect(rows.count > 20 && viaRequest.count == rows.count && viaSQL.count == rows.count)
        for (row, records) in zip(rows, zip(viaRequest, viaSQL)) {
            for record in [records.0, records.1] {
                let fields: [(String, DatabaseValue)] = [
                    ("id", record.id.databaseValue), ("asset_id", record.assetId.databaseValue), ("role", record.role.databaseValue),
                    ("path", record.path.databaseValue), ("sha256", record.sha256.databaseValue), ("bytes", record.bytes.databaseValue),
                    ("mime", record.mime.databaseValue), ("derived_from", record.derivedFrom.databaseValue),
                    ("original_name", record.originalName.databaseValue), ("source_dir", record.sourceDir.databaseValue),
                    ("added_at", record.addedAt.databaseValue), ("crc32", record.crc32.databaseValue),
                ]
                #expect(fields.count == ResourceRecord.CodingKeys.allCases.count)
                for (column, value) in fields { #expect(value == row[column] as DatabaseValue, "resource \(record.id ?? 0): \(column)") }
            }
        }
    }
}

@Test(.enabled(if: Media.shouldRun, Media.skipMessage))
func migration0016ForgetsAMoviesNoFixLocation() throws {
    // A catalog from before 0016, whose Samsung Motion Photo's movie was recorded at 0,0.
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("lib")
    let library = try PhotoLibrary(root: root, mode: .create)
    _ = try Importer(library: library).run(paths: [Media.path("android-depth-motion/samsung-one-ui-6.heic")])
    try library.catalog.sqliteWrite { db in
        try db.execute(sql: "UPDATE metadata SET latitude = 0, longitude = 0 WHERE format = 'mp4'")
        try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = '0016_no_fix_locations'")
    }
    #expect(try library.describe([1]).first?.location == GeoLocation(latitude: 0, longitude: 0))
    try library.catalog.close()
    let again = try PhotoLibrary(root: root, mode: .write)
    #expect(try again.describe([1]).first?.location == nil)
    // `query --near` reads metadata's places: none is left at 0,0.
    let placed = try again.catalog.sqliteRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM metadata WHERE latitude IS NOT NULL") }
    #expect(placed == 0)
}

/// A library imported before the job queue gets a proxy job for each movie browsers cannot
/// play (migration 0020): HEVC, not H.264, and edits' movies whose codec is not recorded;
/// a worker makes them ahead of the first play.
@Test(.enabled(if: Media.shouldRun, Media.skipMessage))
func migration0020QueuesProxiesOfTheMoviesAlreadyThere() throws {
    let dir = try ScratchDirectory()
    let root = dir.url.appendingPathComponent("lib")
    let library = try PhotoLibrary(root: root, mode: .create)
    _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo")])
    let movies = try library.catalog.sqliteRead { db in
        try Int64.fetchAll(
            db,
            sql: """
                SELECT r.id FROM resource r LEFT JOIN metadata m ON m.resource_id = r.id
                WHERE (r.role IN ('pairedVideo', 'video') AND m.video_codec = 'hevc') OR r.role = 'renderedVideo' ORDER BY r.id
                """)
    }
    // The originals' HEVC movies, and Apple's edit of IMG_3582 (HEVC, its codec not recorded).
    #expect(movies.count == 3)
    try library.catalog.sqliteWrite { db in
        try db.execute(sql: "DELETE FROM job")
        try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = '0020_queue_proxies_of_existing_movies'")
    }
    try library.catalog.close()
    let again = try PhotoLibrary(root: root, mode: .write)
    let queued = try again.catalog.sqliteRead { db in
        try Int64.fetchAll(db, sql: "SELECT resource_id FROM job WHERE kind = 'proxy' AND state = 'available' ORDER BY resource_id")
    }
    #expect(queued == movies)
}

/// The views answer the question their names ask (migration 0018): a spatial photo's
/// identifier does not make it half a Live Photo; depth is found as `--has depth` finds
/// it; a camera's first and last captures are compared as moments.
@Test(.enabled(if: Media.shouldRun, Media.skipMessage))
func theViewsAnswerTheQuestionTheirNamesAsk() throws {
    let corpus = try CorpusLibrary.shared()
    let library = corpus.library
    let (halves, withDepth, iPhone15) = try library.catalog.sqliteRead { db in
        (
            try String.fetchAll(db, sql: "SELECT path FROM unpaired_live_half"),
            try Int64.fetchAll(db, sql: "SELECT asset_id FROM assets_with_depth ORDER BY asset_id"),
            try Row.fetchOne(db, sql: "SELECT * FROM assets_by_camera WHERE model = 'iPhone 15 Pro'")
        )
    }
    #expect(halves.isEmpty, "the corpus's Live Photos are all paired; IMG_4076 is a spatial photo: \(halves)")
    var query = AssetQuery()
    query.has = [.aux(.depth)]
    #expect(withDepth == (try library.assetIDs(matching: query)).sorted())
    #expect(withDepth.count > 4, "iPhone maps are disparity, and count")
    let row = try #require(iPhone15)
    // IMG_4394, taken at 17:14:22.332-05:00, is the latest, given as a moment in UTC.
    #expect(row["last_captured"] as String? == "2025-08-06T22:14:22.332Z")
    // A movie alone that carries a Live Photo's identifier is half a Live Photo.
    let dir = try ScratchDirectory()
    let alone = try PhotoLibrary(root: dir.url.appendingPathComponent("lib"), mode: .create)
    _ = try Importer(library: alone).run(paths: [Media.path("apple-live-photo/IMG_4394.mov")])
    let movieHalf = try alone.catalog.sqliteRead { db in try String.fetchAll(db, sql: "SELECT content_identifier FROM unpaired_live_half") }
    #expect(movieHalf == ["ED2A2552-C906-486E-9DA5-17DABDF672A7"])
}

/// A record read by position is read so through GRDB's own requests too: they select its
/// columns in its order, not the table's `*`, whose order a later migration may change.
@Test(.enabled(if: Media.shouldRun, Media.skipMessage))
func positionalRecordsSelectTheirColumnsInTheirOrder() throws {
    let catalog = try CorpusLibrary.shared().library.catalog
    try catalog.sqliteRead { db in
        func check<Record: PositionalRecord>(_ type: Record.Type) throws -> Int {
            let sql = try Record.all().makePreparedRequest(db).statement.sql
            let columns = Record.CodingKeys.allCases.map { "\"\($0.stringValue)\"" }.joined(separator: ", ")
            #expect(sql.hasPrefix("SELECT \(columns) FROM"), "\(sql)")
            return try Record.fetchAll(db).count
        }
        #expect(try check(ResourceRecord.self) > 0)
        #expect(try check(AuxImageRecord.self) > 0)
        _ = try check(AdjustmentRecord.self)
    }
}
