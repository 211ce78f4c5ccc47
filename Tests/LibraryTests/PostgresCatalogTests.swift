import Foundation
import GRDB
import PostgresNIO
import Testing
import TestSupport

@testable import Library

/// The catalog on a PostgreSQL server: its schema against SQLite's, its errors, and a
/// SQLite catalog copied into it. Each test uses a new database of this process's own
/// private cluster (TestSupport's PostgresServer).
@Suite struct PostgresCatalogTests {
    @Test func everySQLiteMigrationAfterTheBaselineHasAPostgreSQLTwin() {
        let postgres = EmbeddedPostgresMigrations.all.map(\.name)
        let baseline = Int(postgres[0].prefix(4))!
        #expect(postgres[0].hasSuffix("_baseline"))
        #expect(Array(postgres.dropFirst()) == Catalog.knownMigrations.filter { Int($0.prefix(4))! > baseline })
        #expect(Catalog.knownMigrations.contains { Int($0.prefix(4))! == baseline }, "the baseline stands for a SQLite migration of its number")
        #expect(PostgresCatalog.knownMigrations == Catalog.knownMigrations)
    }

    @Test func aNewCatalogIsMigratedOnceAndListsSQLitesMigrations() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("fresh")
        let location = try PostgresLocation(url: server.url(database: database))
        // Two processes' worth of openers at once: one migrates, the other waits for it.
        let opened = try [0, 1].concurrentMap { _ in try PostgresCatalog(location: location) }
        for catalog in opened {
            #expect(try catalog.appliedMigrations() == Catalog.knownMigrations.sorted())
            catalog.close()
        }
        var heard: [String]?
        let again = try PostgresCatalog(location: location) { heard = $0 }
        #expect(heard == nil, "nothing left to migrate")
        again.close()
        let rows = try server.psql(database, "SELECT count(*) FROM camlib_migrations")
        #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(Catalog.knownMigrations.count)")
    }

    @Test func itsTablesAndViewsHaveSQLitesNamesAndColumns() throws {
        let scratch = try ScratchDirectory()
        let sqlite = try Catalog(path: scratch.file("catalog.sqlite"), access: .readWrite(concurrent: false))
        defer { try? sqlite.close() }
        let server = try PostgresServer.shared()
        let postgres = try PostgresCatalog(location: PostgresLocation(url: server.url(database: try server.createDatabase("schema"))))
        defer { postgres.close() }

        // SQLite's own bookkeeping and the FTS5 tables of the name search (a pg_trgm index
        // in PostgreSQL) are not the catalog's: compared are the tables and views camlib defines.
        let bookkeeping = ["grdb_migrations", "sqlite_sequence", "asset_summary_refresh", "asset_place_refresh", "camlib_migrations"]
        func sqliteColumns(_ type: String) throws -> [String: [String]] {
            try sqlite.sqliteRead { db in
                let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'asset_summary_names%'", arguments: [type])
                return try Dictionary(uniqueKeysWithValues: names.filter { !bookkeeping.contains($0) }.map { name in
                    (name, try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [name]))
                })
            }
        }
        func postgresColumns(_ type: String) throws -> [String: [String]] {
            let rows = try postgres.withSession { session in
                try session.query(
                    """
                    SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                    WHERE c.table_schema = current_schema() AND t.table_type = $1
                    ORDER BY c.table_name, c.ordinal_position
                    """, [type]
                ).map { try $0.decode((String, String).self) }
            }
            return Dictionary(grouping: rows.filter { !bookkeeping.contains($0.0) }, by: \.0).mapValues { $0.map(\.1) }
        }
        let (sqliteTables, postgresTables) = (try sqliteColumns("table"), try postgresColumns("BASE TABLE"))
        #expect(Set(sqliteTables.keys) == Set(postgresTables.keys))
        for (table, columns) in sqliteTables { #expect(postgresTables[table] == columns, "table \(table)") }
        let (sqliteViews, postgresViews) = (try sqliteColumns("view"), try postgresColumns("VIEW"))
        #expect(Set(sqliteViews.keys) == Set(postgresViews.keys))
        for (view, columns) in sqliteViews { #expect(postgresViews[view] == columns, "view \(view)") }
        #expect(sqliteViews.count >= 16)
    }

    @Test func juliandayAndItsTextAreSQLitesToTheBit() throws {
        let server = try PostgresServer.shared()
        let postgres = try PostgresCatalog(location: PostgresLocation(url: server.url(database: try server.createDatabase("julian"))))
        defer { postgres.close() }
        var times = [
            "2019-12-29T19:01:15.505", "2020-06-30T11:27:59", "2025-05-26T09:27:06.603-05:00", "2022-11-30T19:38:40.893+01:00",
            "2024-02-29", "2024-02-29T23:59:59.9995Z", "1999-12-31T23:59:59.999+14:00", "2023-05-01T10:00", "2023-05-01 10:00:00",
            "2023-02-30T00:00:00", "not a time", "", "2023-13-01T00:00:00", "1970-01-01T00:00:00Z",
        ]
        // And every capture time of the real corpus.
        let corpus = try CorpusLibrary.shared().library.catalog.sqliteRead { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT captured_at FROM metadata WHERE captured_at IS NOT NULL")
        }
        #expect(corpus.count > 10)
        times += corpus
        let sqlite = try DatabaseQueue()
        for time in times {
            let (day, text) = try sqlite.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT julianday(?1), strftime('%Y-%m-%dT%H:%M:%fZ', julianday(?1))", arguments: [time])!
                return (row[0] as Double?, row[1] as String?)
            }
            let (pgDay, pgText) = try postgres.withSession { session in
                try session.query("SELECT julianday($1), julian_iso(julianday($1))", [time]).first!.decode((Double?, String?).self)
            }
            #expect(pgDay?.bitPattern == day?.bitPattern, "julianday(\(time)): SQLite \(String(describing: day)), PostgreSQL \(String(describing: pgDay))")
            #expect(pgText == text, "\(time)")
        }
    }

    /// A copy of the corpus's catalog, with albums, keywords, a favourite, an edit's rows
    /// and an asset in the trash added, so every table has rows.
    static func corpusCatalog(in scratch: ScratchDirectory) throws -> Catalog {
        let path = scratch.file("catalog.sqlite")
        try CorpusLibrary.shared().library.catalog.backup(to: path)
        let sqlite = try Catalog(path: path, access: .readWrite(concurrent: false))
        try sqlite.sqliteWrite { db in
            try db.execute(
                sql: """
                    INSERT INTO album (name, created_at) VALUES ('Trip', '2026-01-01T00:00:00.000Z'), ('Ünïcode Älbum', '2026-01-02T00:00:00.000Z');
                    INSERT INTO album_asset SELECT 1, id, id, '2026-01-01T00:00:00.000Z' FROM asset LIMIT 5;
                    INSERT INTO keyword (name) VALUES ('beach');
                    INSERT INTO asset_keyword SELECT 1, id FROM asset LIMIT 3;
                    INSERT INTO favorite SELECT id, '2026-01-01T00:00:00.000Z' FROM asset LIMIT 2;
                    INSERT INTO trashed_asset SELECT max(id), '2026-01-03T00:00:00.000Z' FROM asset;
                    INSERT INTO preference VALUES ('gallery.sort', 'captured', '2026-01-01T00:00:00.000Z');
                    INSERT INTO adjustment (asset_id, format_identifier, format_version, data, origin, created_at)
                        SELECT min(id), 'org.camlib.filters', '1', '{"filters":[{"name":"comic"}],"a":0.35599999999999998}', 'camlib', '2026-01-01T00:00:00.000Z' FROM asset;
                    INSERT OR REPLACE INTO asset_version SELECT asset_id, id, created_at FROM adjustment WHERE id = (SELECT max(id) FROM adjustment);
                    INSERT INTO job (kind, asset_id, arguments, dedupe_key, run_after, created_at)
                        SELECT 'render', min(id), '{"recipe":{"filter":"comic"},"n":1.5}', 'render:' || min(id), '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM asset;
                    DELETE FROM asset WHERE id = (SELECT id FROM asset ORDER BY id DESC LIMIT 1 OFFSET 1);
                    """)
        }
        return sqlite
    }

    @Test func theCorpusCatalogCopiesWithItsIdsAndItsSummaryIsSQLites() throws {
        let scratch = try ScratchDirectory()
        let sqlite = try Self.corpusCatalog(in: scratch)
        defer { try? sqlite.close() }
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("copy")
        let postgres = try PostgresCatalog(location: PostgresLocation(url: server.url(database: database)))
        defer { postgres.close() }
        var heard: [CatalogCopy.Progress] = []
        let report = try CatalogCopy(source: sqlite, target: postgres, batch: 7).run { heard.append($0) }
        let rows = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rows) })
        let counts = try sqlite.sqliteRead { db in
            try Dictionary(uniqueKeysWithValues: (CatalogCopy.copied + CatalogCopy.derived).map { ($0, try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)")!) })
        }
        #expect(rows == counts)
        // Each stage is heard as it ends: the copy, the summaries made, the check.
        #expect(
            heard == CatalogCopy.copied.map { .copied(table: $0, rows: counts[$0]!) } + [.summarised]
                + (CatalogCopy.copied + CatalogCopy.derived).map { .checked(table: $0, rows: counts[$0]!) })
        for table in ["asset", "resource", "metadata", "pairing", "aux_image", "asset_summary", "asset_file_name", "camera", "album_asset", "job"] {
            #expect((rows[table] ?? 0) > 0, "\(table) has rows to compare")
        }
        // What the catalog's own views say is the same in both: ids, names, summaries.
        let views: [(String, [String])] = [
            ("asset_overview", ["id", "kind", "captured_at", "make", "model", "original_name", "photo_path", "video_path", "paired_by", "width"]),
            ("live_photo", ["asset_id", "photo_path", "video_path", "paired_by"]),
            ("album_overview", ["id", "name", "assets", "cover_asset_id"]), ("keyword_overview", ["id", "name", "assets"]),
            ("assets_by_camera", ["make", "model", "assets", "first_captured", "last_captured"]),
            ("aux_overview", ["asset_id", "photo_name", "type", "path", "meaning", "units"]),
            ("trashed_summary", ["asset_id", "sort_name", "aux_types", "edited", "camera_id", "trashed_at"]),
            ("current_resource", ["id", "asset_id", "role", "path", "lower_name"]), ("adjustment_history", ["asset_id", "adjustment_id", "\"current\""]),
            ("assets_with_depth", ["asset_id", "types"]), ("storage_by_role", ["role", "files", "bytes"]),
            ("motion_photo", ["asset_id", "movie_path", "\"offset\"", "length"]), ("job_overview", ["kind", "state", "jobs"]),
        ]
        for (view, columns) in views {
            let line = columns.map { "coalesce(CAST(\($0) AS TEXT), '-')" }.joined(separator: " || '|' || ")
            let fromSQLite = try sqlite.sqliteRead { db in try String.fetchAll(db, sql: "SELECT \(line) FROM \(view)") }.sorted()
            let fromPostgres = try postgres.withSession { session in try session.query("SELECT \(line) FROM \(view)").map { try $0.decode(String.self) } }.sorted()
            #expect(fromPostgres == fromSQLite, "view \(view)")
            #expect(!fromSQLite.isEmpty || view == "job_overview", "view \(view) has rows to compare")
        }
        // Nothing more may be copied into it: it is not empty any more.
        #expect(throws: PostgresCatalogError.notEmpty(url: postgres.location.description, assets: counts["asset"]!)) {
            try CatalogCopy(source: sqlite, target: postgres).run()
        }
        // The check reads both again; a value changed on the server is found and named.
        #expect(try CatalogCopy(source: sqlite, target: postgres).check() == report)
        _ = try server.psql(database, "UPDATE metadata SET software = 'Someone else' WHERE resource_id = (SELECT min(resource_id) FROM metadata)")
        #expect {
            try CatalogCopy(source: sqlite, target: postgres).check()
        } throws: { error in
            guard case PostgresCatalogError.copyDiffers(_, let table, _) = error else { return false }
            return table == "metadata"
        }
        // New rows go on after the highest id SQLite gave out, the deleted one's included.
        let next = try postgres.write { session in
            try session.query("INSERT INTO asset (kind, imported_at) VALUES ('photo', catalog_now()) RETURNING id").first!.decode(Int64.self)
        }
        let given = try sqlite.sqliteRead { db in try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'asset'")! }
        #expect(next == given + 1)
    }

    /// Copied back into SQLite with its triggers held, the catalog is the one the triggers
    /// make row by row, table for table, its name search included; and the one it was
    /// copied from. The triggers are there again after the copy, and work.
    @Test func aCatalogCopiedBackWithTheTriggersHeldIsTheOneTheyMakeRowByRow() throws {
        let scratch = try ScratchDirectory()
        let original = try Self.corpusCatalog(in: scratch)
        defer { try? original.close() }
        let server = try PostgresServer.shared()
        let postgres = try PostgresCatalog(location: PostgresLocation(url: server.url(database: server.createDatabase("back"))))
        defer { postgres.close() }
        _ = try CatalogCopy(source: original, target: postgres).run()

        var copies: [Catalog] = []
        defer { for copy in copies { try? copy.close() } }
        for holding in [true, false] {
            let copy = try Catalog(path: scratch.file("back-\(holding).sqlite"), access: .readWrite(concurrent: false))
            copies.append(copy)
            var heard: [CatalogCopy.Progress] = []
            let report = try copy.sqliteWrite { db in try CatalogCopy.back(from: postgres, into: db, holdingTriggers: holding) { heard.append($0) } }
            let rows = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rows) })
            let copied = CatalogCopy.copied + (holding ? CatalogCopy.derived : [])
            #expect(
                heard == copied.map { .copied(table: $0, rows: rows[$0]!) } + (holding ? [.summarised] : [])
                    + (CatalogCopy.copied + CatalogCopy.derived).map { .checked(table: $0, rows: rows[$0]!) })
        }
        // Every table but the full-text index's own (its pages differ with how it was
        // written), each row as text, in order.
        func tables(_ catalog: Catalog) throws -> [String: [String]] {
            try catalog.sqliteRead { db in
                let names = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'asset_summary_names%' ORDER BY name")
                return try Dictionary(uniqueKeysWithValues: names.map { name in
                    (name, try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\"").map(\.description).sorted())
                })
            }
        }
        func searched(_ catalog: Catalog) throws -> [[Int64]] {
            try catalog.sqliteRead { db in
                // Trigrams of the lower-case names, as the search asks for them.
                try ["img", "jpg", "hei", "mov", "pug", "_00"].map {
                    try Int64.fetchAll(db, sql: "SELECT rowid FROM asset_summary_names WHERE asset_summary_names MATCH ? ORDER BY rowid", arguments: ["\"\($0)\""])
                }
            }
        }
        let (held, rowByRow) = (try tables(copies[0]), try tables(copies[1]))
        #expect(held.keys.sorted() == rowByRow.keys.sorted())
        for (name, rows) in rowByRow {
            #expect(held[name] == rows, "table \(name)")
        }
        #expect(try held["asset_summary"]?.count ?? 0 > 10 && held["asset_file_name"]?.isEmpty == false)
        let fromOriginal = try tables(original)
        for name in CatalogCopy.copied + CatalogCopy.derived {
            #expect(held[name] == fromOriginal[name], "table \(name) against the catalog it came from")
        }
        let search = try searched(copies[1])
        #expect(search.contains { !$0.isEmpty })
        #expect(try searched(copies[0]) == search)
        #expect(try searched(original) == search)

        // The triggers are back: a file's new name reaches the summary and the search.
        let triggers = { (catalog: Catalog) in
            try catalog.sqliteRead { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        }
        #expect(try triggers(copies[0]) == triggers(copies[1]))
        #expect(try triggers(copies[0]).count > 20)
        try copies[0].sqliteWrite { db in
            try db.execute(sql: "UPDATE resource SET original_name = 'Zebra_Renamed.HEIC' WHERE id = (SELECT min(id) FROM resource WHERE original_name IS NOT NULL)")
        }
        let found = try copies[0].sqliteRead { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM asset_summary_names WHERE asset_summary_names MATCH '\"zeb\" AND \"ren\"'")
        }
        #expect(found == 1)

        // A summary on the server that is not what SQLite makes of the rows is refused.
        _ = try server.psql(postgres.location.database, "UPDATE asset_summary SET sort_name = 'someone else' WHERE asset_id = (SELECT min(asset_id) FROM asset_summary)")
        let tampered = try Catalog(path: scratch.file("tampered.sqlite"), access: .readWrite(concurrent: false))
        defer { try? tampered.close() }
        #expect {
            try tampered.sqliteWrite { db in try CatalogCopy.back(from: postgres, into: db) }
        } throws: { error in
            guard case PostgresCatalogError.copyDiffers(_, let table, let detail) = error else { return false }
            return table == "asset_summary" && detail.contains("(1 missing, 1 not made)")
        }
    }

    /// A long read goes through a cursor a page at a time inside a transaction: every row
    /// in order, its arguments bound, a nested read on a cursor of its own, each cursor
    /// closed when its read ends or stops early; outside a transaction, it reads as
    /// `forEachRow` does. Its statements are planned as without a cursor.
    @Test func longReadsAreFetchedAPageAtATimeThroughACursor() throws {
        let server = try PostgresServer.shared()
        let catalog = try PostgresCatalog(location: PostgresLocation(url: server.url(database: server.createDatabase("paged"))))
        defer { catalog.close() }
        let rows = 2 * PostgresSession.rowsPerPage + 500
        let series = CatalogSQL(sql: "SELECT g FROM generate_series(1, ?::int) g WHERE g > ? ORDER BY g", arguments: [rows.databaseValue, 0.databaseValue])
        func cursors(_ session: PostgresSession) throws -> [String] {
            try session.query("SELECT name FROM pg_cursors WHERE name LIKE 'camlib_rows_%' ORDER BY name").map { try $0.decode(String.self) }
        }
        try catalog.read { session in
            #expect(try session.query("SHOW cursor_tuple_fraction")[0].decode(String.self) == "1")
            var seen: [Int] = [], open: Set<[String]> = [], nested: [String] = []
            try session.forEachOfManyRows(series) { row in
                seen.append(row[0] as Int? ?? 0)
                if seen.count % 1_000 == 1 { open.insert(try cursors(session)) }
                if seen.count == 3 {
                    try session.forEachOfManyRows(CatalogSQL(sql: "SELECT 1 UNION ALL SELECT 2")) { _ in
                        nested = try cursors(session)
                        return true
                    }
                }
                return true
            }
            #expect(seen == Array(1...rows))
            #expect(open == [["camlib_rows_0"]], "one cursor held throughout")
            #expect(nested == ["camlib_rows_0", "camlib_rows_1"])
            #expect(try cursors(session).isEmpty, "closed at the end")

            var stoppedAt = 0
            try session.forEachOfManyRows(series) { row in
                stoppedAt = row[0] as Int? ?? 0
                return stoppedAt < PostgresSession.rowsPerPage + 10
            }
            #expect(stoppedAt == PostgresSession.rowsPerPage + 10)
            #expect(try cursors(session).isEmpty, "closed when the read stops early")

            let none = CatalogSQL(sql: "SELECT g FROM generate_series(1, 10) g WHERE g > ?", arguments: [10.databaseValue])
            var any = false
            try session.forEachOfManyRows(none) { _ in any = true; return true }
            #expect(!any)
        }
        // Outside a transaction there is no cursor: the rows come whole.
        try catalog.withSession { session in
            var count = 0, open: [String] = ["?"]
            try session.forEachOfManyRows(series) { _ in
                count += 1
                if count == 1 { open = try cursors(session) }
                return true
            }
            #expect(count == rows)
            #expect(open.isEmpty)
        }
    }

    /// camlib's sessions may sit idle inside a transaction for a minute, unless the
    /// database sets its own limit; other clients keep the server's. A session the server
    /// ends (that limit, a restart) fails its statement, and all it sends after, at once,
    /// with the server's reason; the catalog's next call connects again.
    @Test func aSessionEndedByTheServerFailsAtOnceAndTheNextCallConnectsAgain() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("ended")
        let location = try PostgresLocation(url: server.url(database: database))
        let catalog = try PostgresCatalog(location: location)
        defer { catalog.close() }
        func setting(_ catalog: PostgresCatalog) throws -> String {
            try catalog.withSession { try $0.query("SHOW idle_in_transaction_session_timeout")[0].decode(String.self) }
        }
        #expect(try setting(catalog) == "1min")
        #expect(try server.psql(database, "SHOW idle_in_transaction_session_timeout").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // Ended while idle in a transaction: that statement and the ROLLBACK after it fail
        // (they do not wait), naming the cause; nothing of the transaction stays.
        _ = try server.psql(database, "ALTER DATABASE \(database) SET idle_in_transaction_session_timeout = '300ms'")
        let limited = try PostgresCatalog(location: location)
        defer { limited.close() }
        #expect(try setting(limited) == "300ms", "the database's own limit is kept")
        #expect {
            try limited.write { session in
                try session.query("INSERT INTO album (name, created_at) VALUES ('kept?', catalog_now())")
                usleep(1_000_000)
                try session.query("SELECT 1")
            }
        } throws: { error in
            guard case PostgresCatalogError.lost(let url, let detail) = error else { return false }
            // The server's own words when it said them before the session closed; camlib's otherwise.
            return url == location.description && (detail.contains("idle-in-transaction timeout") || detail.contains("idle_in_transaction_session_timeout"))
        }
        #expect(try limited.withSession { try $0.query("SELECT count(*) FROM album")[0].decode(Int.self) } == 0)

        // Ended between two calls (the server restarted, say): the next call connects again.
        _ = try server.psql(database, "ALTER DATABASE \(database) RESET idle_in_transaction_session_timeout")
        _ = try server.psql(database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        usleep(300_000)
        #expect(try catalog.withSession { try $0.query("SELECT 1")[0].decode(Int.self) } == 1)
        #expect(try setting(catalog) == "1min", "a new session gets camlib's settings")

        // A statement sent on a session that has already closed fails; it does not wait.
        let session = try PostgresSession(location)
        _ = try server.psql(database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        usleep(300_000)
        #expect(throws: PostgresCatalogError.self) { try session.query("SELECT 1") }
        session.close()
    }

    @Test func errorsNameTheURLWithItsPasswordMasked() throws {
        let server = try PostgresServer.shared()
        // No server at that socket: unreachable, nothing more.
        let nowhere = try PostgresLocation(url: "postgresql://camlib@/library?host=\(server.socketFolder)/absent")
        #expect {
            try PostgresCatalog(location: nowhere)
        } throws: { error in
            guard case PostgresCatalogError.unreachable(let url, _) = error else { return false }
            return url == nowhere.description && "\(error)".contains("cannot reach")
        }
        // No such database.
        #expect(throws: PostgresCatalogError.noDatabase(url: server.url(database: "absent_db"), database: "absent_db")) {
            try PostgresCatalog(location: PostgresLocation(url: server.url(database: "absent_db")))
        }
        // A role with a password, over TCP: a wrong one is refused, and never printed.
        _ = try server.psql("postgres", "CREATE ROLE camlib_owner LOGIN PASSWORD 'right horse battery'")
        let database = try server.createDatabase("login")
        _ = try server.psql("postgres", "ALTER DATABASE \(database) OWNER TO camlib_owner")
        try server.allow(["host all camlib_owner 127.0.0.1/32 scram-sha-256"])
        let wrong = try PostgresLocation(url: server.tcpURL(database: database, user: "camlib_owner", password: "wrong%20staple"))
        #expect {
            try PostgresCatalog(location: wrong)
        } throws: { error in
            guard case PostgresCatalogError.loginRefused(let url, _) = error else { return false }
            let text = "\(error)"
            return url.contains(":***@") && !text.contains("staple") && text.contains("127.0.0.1:\(server.port)")
        }
        // The right one from PGPASSWORD (not in the URL) works, and the schema is made.
        var location = try PostgresLocation(url: server.tcpURL(database: database, user: "camlib_owner"))
        #expect(location.password(environment: ["PGPASSWORD": "right horse battery"]) == "right horse battery")
        location.password = "right horse battery"
        let catalog = try PostgresCatalog(location: location)
        #expect(try catalog.appliedMigrations().count == Catalog.knownMigrations.count)
        catalog.close()
        // A migration this camlib does not know: a newer camlib wrote the catalog.
        _ = try server.psql(database, "INSERT INTO camlib_migrations VALUES ('0099_from_the_future', '2030-01-01T00:00:00.000Z')")
        #expect(throws: PostgresCatalogError.newerSchema(url: location.description, unknownMigrations: ["0099_from_the_future"])) {
            try PostgresCatalog(location: location)
        }
    }
}

/// URLs, read as libpq reads them; no server needed.
@Suite struct PostgresLocationTests {
    @Test func tcpAndSocketURLsAreRead() throws {
        let tcp = try PostgresLocation(url: "postgresql://anna:s%40cret@nas.local:5433/photos")
        #expect(tcp.user == "anna" && tcp.password == "s@cret" && tcp.host == "nas.local" && tcp.port == 5433 && tcp.database == "photos")
        #expect(tcp.socketFolder == nil)
        #expect(tcp.storable == "postgresql://anna@nas.local:5433/photos")
        #expect(tcp.description == "postgresql://anna:***@nas.local:5433/photos")

        let socket = try PostgresLocation(url: "postgresql://anna@/photos?host=/run/postgresql")
        #expect(socket.host == nil && socket.socketFolder == "/run/postgresql" && socket.port == 5432)
        #expect(socket.storable == "postgresql://anna@/photos?host=/run/postgresql")
        #expect(try PostgresLocation(url: socket.storable) == socket)
        let encodedHost = try PostgresLocation(url: "postgres://anna@%2Frun%2Fpostgresql:6000/photos")
        #expect(encodedHost.socketFolder == "/run/postgresql" && encodedHost.port == 6000)
        #expect(try PostgresLocation(url: "postgresql://anna@/photos").socketFolder == PostgresLocation.defaultSocketFolder)
        #expect(try PostgresLocation(url: "postgresql://anna@[::1]:7000/photos").host == "::1")
    }

    @Test func badURLsSayWhatIsWrongWithoutThePassword() {
        for (text, why) in [
            ("postgresql://anna:pw@nas/", "names no database"), ("postgresql://anna:pw@nas:99999/photos", "port"),
            ("postgresql://anna:pw@nas/photos?sslmode=require", "TLS"), ("postgresql://anna:pw@nas/photos?application_name=x", "application_name"), ("mysql://anna:pw@nas/photos", "postgresql://"),
        ] {
            #expect {
                try PostgresLocation(url: text)
            } throws: { error in
                let message = "\(error)"
                return message.contains(why) && !message.contains(":pw@") && message.contains(":***@")
            }
        }
    }

    @Test func thePasswordFileIsReadAsLibpqReadsIt() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.file("pgpass")
        try """
            # host:port:database:user:password
            nas.local:5432:other:anna:not this one
            nas.local:*:photos:anna:it\\:s\\\\me
            *:*:*:*:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let location = try PostgresLocation(url: "postgresql://anna@nas.local/photos")
        // Readable by others: ignored, as libpq ignores it.
        chmod(file, 0o644)
        #expect(location.password(environment: ["PGPASSFILE": file]) == nil)
        chmod(file, 0o600)
        #expect(location.password(environment: ["PGPASSFILE": file]) == "it:s\\me")
        #expect(location.password(environment: ["PGPASSFILE": file, "PGPASSWORD": "from env"]) == "from env")
        #expect(try PostgresLocation(url: "postgresql://bob@elsewhere/x").password(environment: ["PGPASSFILE": file]) == "fallback")
    }

    @Test func scriptsAreSplitOutsideQuotesAndComments() {
        let script = """
            -- a comment; with a semicolon
            CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN 'a;b'; END $$;
            /* block; comment */ SELECT 'it''s; fine', "odd;name" FROM t;
            SELECT $tag$ $$; $tag$;
            """
        #expect(PostgresSession.statements(of: script).count == 3)
        #expect(PostgresSession.statements(of: script)[0].hasSuffix("END $$"))
        #expect(PostgresSession.statements(of: script)[2] == "SELECT $tag$ $$; $tag$")
    }

    /// CAMLIB_SQL_TRACE's lines on PostgreSQL, which bench/query.py replays in psql: each
    /// `$n` its value as sent (a quoted literal), `$10` not taken for `$1` and a 0, a value
    /// holding `$2` left as it is, `$$` and a `$n` beyond the values kept.
    @Test func tracedStatementsHaveTheirValuesInPlace() {
        let values: [(any PostgresThrowingDynamicTypeEncodable)?] =
            [PostgresSession.untyped("it's $2".databaseValue), nil] + (3...10).map { PostgresSession.untyped(Int64($0).databaseValue) }
        let sql = "SELECT $1, $2, $10, $$x$$, $11 FROM t WHERE a IN ($3,$4)"
        #expect(PostgresSession.expanded(sql, values) == "SELECT 'it''s $2', NULL, '10', $$x$$, $11 FROM t WHERE a IN ('3','4')")
    }
}

extension Array where Element: Sendable {
    /// `transform` of every element, each on a thread of its own, in order.
    fileprivate func concurrentMap<T>(_ transform: @Sendable (Element) throws -> T) throws -> [T] {
        let results = UnsafeResults<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            results.set(index, Result { try transform(self[index]) })
        }
        return try results.values.map { try $0!.get() }
    }
}

private final class UnsafeResults<T>: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Result<T, any Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<T, any Error>) { lock.withLock { values[index] = value } }
}
