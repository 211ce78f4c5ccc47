import Foundation
import Testing
import TestSupport

/// A library whose catalog is on PostgreSQL, through the commands a person types: made
/// with `camlib init --catalog`, or moved there with `camlib catalog copy`, it does what a
/// library on SQLite does and prints the same, byte for byte; a server that is down is
/// named, password masked.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct PostgresLibraryTests {
    func camlib(_ arguments: [String], _ environment: [String: String]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let result = try Camlib.run(arguments, environment: environment)
        #expect(result.status == 0, "camlib \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// What a library's listings print: every asset as JSON, in two orders, paged by
    /// cursor, as CSV, and one asset shown.
    func listings(_ library: String) throws -> [String] {
        var printed: [String] = []
        for arguments in [["--json"], ["--json", "--sort", "name", "--reverse"], ["--csv"], ["--json", "--kind", "live", "--name", "IMG_*"], ["--json", "--has", "depth"]] {
            printed.append(try camlib(["query", "--library", library] + arguments).stdout)
        }
        var cursor: String?
        repeat {
            let page = try camlib(["query", "--library", library, "--json", "--sort", "captured", "--limit", "4"] + (cursor.map { ["--after", $0] } ?? []))
            printed.append(page.stdout)
            let assets = try JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [[String: Any]] ?? []
            cursor = assets.count == 4 ? assets.last?["cursor"] as? String : nil
        } while cursor != nil
        printed.append(try camlib(["show", "--library", library, "--json", "1"]).stdout)
        return printed
    }

    @Test func aLibraryMovedToPostgreSQLListsAsItDidAndMovesBack() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        _ = try camlib([
            "import", "--library", library, "--no-wait", Media.path("apple-live-photo"), Media.path("apple-portrait-heic"), Media.path("android-depth-motion"),
            Media.path("orientation"),
        ])
        _ = try camlib(["edit", "--library", library, "--filter", "comic", "1"])
        let before = try listings(library)
        #expect(before.count > 8 && before.allSatisfy { !$0.isEmpty })
        #expect(before[0].contains("\"adjustments\"") && before[0].contains("org.camlib"), "an edit to compare")

        let server = try PostgresServer.shared()
        let database = try server.createDatabase("moved")
        let url = server.url(database: database)
        let moved = try camlib(["catalog", "copy", "--library", library, "--to", url, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(moved.stdout.utf8)) as? [String: Any])
        let tables = try #require(report["tables"] as? [[String: Any]])
        #expect(tables.contains { $0["name"] as? String == "asset" && ($0["rows"] as? Int ?? 0) > 20 }, "\(moved.stdout)")
        // Each stage is told as it ends, the check's included.
        let told = moved.stderr.split(separator: "\n").map(String.init)
        let assets = try #require(tables.first { $0["name"] as? String == "asset" }?["rows"] as? Int)
        #expect(told.firstIndex(of: "  copied asset: \(assets) rows")! < told.firstIndex { $0.hasPrefix("  made the summaries (asset_summary") }!, "\(moved.stderr)")
        #expect(told.filter { $0.hasPrefix("  checked ") }.count == tables.count, "\(moved.stderr)")
        let fm = FileManager.default
        #expect(!fm.fileExists(atPath: library + "/catalog.sqlite"))
        #expect(fm.fileExists(atPath: library + "/catalog-moved-to-postgresql.sqlite"))
        #expect(try String(contentsOfFile: library + "/catalog.url", encoding: .utf8) == url + "\n")
        // Analysed by the copy itself, not left to autovacuum.
        #expect(try server.psql(database, "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'asset'").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1")

        // The same bytes from PostgreSQL, listing by listing.
        let after = try listings(library)
        for (index, (old, new)) in zip(before, after).enumerated() {
            #expect(new == old, "listing \(index) differs on PostgreSQL")
        }

        // Moved once: a second move is refused.
        let again = try Camlib.run(["catalog", "copy", "--library", library, "--to", url])
        #expect(again.status != 0 && again.stderr.contains("on PostgreSQL already"), "\(again.stderr)")

        // And back into the folder: the same listings again, and everything works.
        let back = try camlib(["catalog", "copy", "--library", library, "--to", "sqlite", "--json"])
        #expect(back.stdout.contains("\"asset_summary\""), "\(back.stdout)")
        #expect(back.stderr.contains("  checked the summaries (asset_summary"), "\(back.stderr)")
        #expect(back.stderr.contains("  checked asset: \(assets) rows alike on both sides"), "\(back.stderr)")
        #expect(fm.fileExists(atPath: library + "/catalog.sqlite") && !fm.fileExists(atPath: library + "/catalog.url"))
        #expect(try fm.contentsOfDirectory(atPath: library + "/tmp").isEmpty)
        let home = try listings(library)
        for (index, (old, new)) in zip(before, home).enumerated() {
            #expect(new == old, "listing \(index) differs after the catalog came back")
        }
        _ = try camlib(["trash", "--library", library, "2"])
        #expect(try camlib(["query", "--library", library, "--json", "--trashed"]).stdout.contains("\"id\" : 2"))
    }

    /// A catalog made by its owner and copied into by another role, which may write its
    /// rows but not hold its tables' triggers: the copy goes row by row, the triggers
    /// making the summary as it goes, and the library lists as it did.
    @Test func aCopyByARoleThatDoesNotOwnTheTablesLetsTheTriggersWork() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        _ = try camlib(["import", "--library", library, "--no-wait", Media.path("apple-live-photo"), Media.path("android-depth-motion")])
        _ = try camlib(["favorite", "--library", library, "1"])
        let before = try listings(library)

        let server = try PostgresServer.shared()
        let database = try server.createDatabase("not_owned")
        _ = try camlib(["init", "--library", scratch.file("owner"), "--catalog", server.url(database: database)])
        _ = try server.psql("postgres", "DO $$ BEGIN CREATE ROLE camlib_copier LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        _ = try server.psql(database, """
            GRANT USAGE ON SCHEMA public TO camlib_copier;
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO camlib_copier;
            GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO camlib_copier
            """)
        let trace = scratch.file("trace.sql")
        _ = try camlib(["catalog", "copy", "--library", library, "--to", server.url(database: database, user: "camlib_copier")], ["CAMLIB_SQL_TRACE": trace])
        let statements = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(statements.contains("ROLLBACK TO SAVEPOINT hold_triggers"), "the triggers could not be held")
        #expect(!statements.contains("INSERT INTO asset_summary SELECT"), "so the summary was not rebuilt in one go")
        #expect(try server.psql(database, "SELECT count(*) > 0 FROM asset_summary").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "t")
        let after = try listings(library)
        for (index, (old, new)) in zip(before, after).enumerated() {
            #expect(new == old, "listing \(index) differs after a copy made row by row")
        }
    }

    /// What a command prints with what differs between two libraries taken out: the
    /// library's folder, the times the catalog wrote (UTC, ending in Z), how long it took,
    /// processes' ids, a batch's random name.
    static func comparable(_ text: String, library: String) -> String {
        var text = text.replacingOccurrences(of: library, with: "LIBRARY")
        for (pattern, replacement) in [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, "TIME"), (#""seconds" : [0-9.e-]+"#, #""seconds" : 0"#),
            (#"\(\d+(\.\d+)? s\)"#, "(0 s)"), (#"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"#, "TIME"), (#""pid":\d+"#, #""pid":0"#),
            (#""seconds":[0-9.e-]+"#, #""seconds":0"#),
            (#"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "UUID"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    /// The same commands on a library made on SQLite and one made on PostgreSQL print the
    /// same, one by one: import (again, and rehearsed), edits, albums, keywords,
    /// favourites, the trash and its emptying, a worker, revert, verify, export, and the
    /// listings.
    @Test func everyCommandDoesOnPostgreSQLWhatItDoesOnSQLite() throws {
        let scratch = try ScratchDirectory()
        let server = try PostgresServer.shared()
        let url = server.url(database: try server.createDatabase("parity"))
        let sqlite = scratch.file("sqlite"), postgres = scratch.file("postgres")
        _ = try camlib(["init", "--library", sqlite])
        let made = try camlib(["init", "--library", postgres, "--catalog", url])
        #expect(made.stdout.contains("its catalog on PostgreSQL") && made.stdout.contains("`camlib import` adds to it"), "\(made.stdout)")
        let media = ["apple-live-photo", "apple-portrait-heic", "android-depth-motion", "orientation", "apple-misc"].map { Media.path($0) }
        func same(_ step: [String]) throws {
            let onSQLite = try Camlib.run(step.map { $0.replacingOccurrences(of: "LIBRARY", with: "sqlite") } + ["--library", sqlite])
            let onPostgres = try Camlib.run(step.map { $0.replacingOccurrences(of: "LIBRARY", with: "postgres") } + ["--library", postgres])
            let command = step.prefix(3).joined(separator: " ")
            #expect(onPostgres.status == onSQLite.status, "camlib \(command): \(onPostgres.stderr)")
            let (old, new) = (Self.comparable(onSQLite.stdout, library: sqlite), Self.comparable(onPostgres.stdout, library: postgres))
            #expect(new.replacingOccurrences(of: "export-postgres", with: "export-sqlite") == old, "camlib \(command) prints otherwise on PostgreSQL:\n\(new)\n\(old)")
        }
        for step in [["import", "--json"] + media, ["import", "--json"] + media, ["import", "--dry-run", "--json", Media.path("malformed")]] {
            try same(step)
        }
        // Edits of stills (a movie's render is encoded anew each time, whatever the catalog).
        let stills = try JSONSerialization.jsonObject(with: Data(try camlib(["query", "--library", sqlite, "--kind", "photo", "--json"]).stdout.utf8))
        let ids = (stills as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }.map(String.init)
        try #require(ids.count >= 4, "the corpus has stills")
        let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3])
        let steps: [[String]] = [
            ["edit", "--json", "--filter", "comic", a], ["edit", "--json", "--filter", "noir", b], ["edit", "--json", "--add-filter", "sepia", a],
            ["album", "create", "--json", "Trip"], ["album", "add", "--json", "Trip", c, a, b], ["album", "cover", "Trip", b],
            ["album", "remove", "--json", "Trip", a], ["album", "list", "--json"], ["keyword", "add", "--json", "sea", a, c, d],
            ["keyword", "remove", "--json", "sea", c], ["keyword", "list", "--json"], ["favorite", "--json", c, b],
            ["trash", "--json", d, "5"], ["restore", "--json", "5"], ["trash", "--empty", "--dry-run", "--json"], ["trash", "--empty", "--json"],
            ["worker", "--until-idle", "--json", "--jobs", "1", "--kinds", "thumbnail,preview,auxPNG,render"], ["revert", "--json", a],
            ["jobs", "--json"], ["verify", "--json"], ["query", "--json", "--favorite"], ["query", "--json", "--album", "Trip"],
            ["query", "--json", "--keyword", "sea"], ["show", "--json", b], ["export", "--json", "--to", scratch.file("export-LIBRARY"), b],
        ]
        for step in steps { try same(step) }
        for (old, new) in zip(try listings(sqlite), try listings(postgres)) {
            #expect(Self.comparable(new, library: postgres) == Self.comparable(old, library: sqlite))
        }
        #expect(try camlib(["verify", "--library", postgres]).stdout.contains("The library is sound"))
    }

    @Test func initMakesALibraryWhoseCatalogIsOnPostgreSQLWithoutItsPassword() throws {
        let scratch = try ScratchDirectory()
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("made")
        let library = scratch.file("made")
        let made = try camlib(["init", "--library", library, "--catalog", server.url(database: database), "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        #expect(answer["catalog"] as? String == server.url(database: database))
        #expect(try camlib(["query", "--library", library, "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        // A library made already is refused, and so is a database that holds one.
        let twice = try Camlib.run(["init", "--library", library, "--catalog", server.url(database: database)])
        #expect(twice.status != 0 && twice.stderr.contains("already exists"), "\(twice.stderr)")

        // A password given in the URL is used, never written into the library.
        try server.allow(["host all camlib_init 127.0.0.1/32 scram-sha-256"])
        _ = try server.psql("postgres", "CREATE ROLE camlib_init LOGIN PASSWORD 's3cret'")
        let owned = try server.createDatabase("owned")
        _ = try server.psql("postgres", "ALTER DATABASE \(owned) OWNER TO camlib_init")
        let second = scratch.file("second")
        let withPassword = try camlib(["init", "--library", second, "--catalog", server.tcpURL(database: owned, user: "camlib_init", password: "s3cret")])
        #expect(!withPassword.stdout.contains("s3cret") && withPassword.stdout.contains(":***@"), "\(withPassword.stdout)")
        let pointer = try String(contentsOfFile: second + "/catalog.url", encoding: .utf8)
        #expect(pointer == server.tcpURL(database: owned, user: "camlib_init") + "\n")
        // The next command finds the password where libpq would: PGPASSWORD here.
        let without = try Camlib.run(["query", "--library", second])
        #expect(without.status != 0 && without.stderr.contains("login"), "\(without.stderr)")
        #expect(try camlib(["query", "--library", second, "--json"], ["PGPASSWORD": "s3cret"]).stdout.contains("[]"))
    }

    /// Many short commands share warm server processes through a connection pooler:
    /// camlib works through PgBouncer in session mode (it sends no startup parameter that
    /// PgBouncer refuses) and prints what it prints connected directly. Its session
    /// settings are the database's own once its owner has migrated it; a session of a
    /// database someone else owns sets them for itself, in the first command's statements.
    @Test func aLibraryWorksThroughPgBouncerAndKeepsItsSettingInTheDatabase() throws {
        let scratch = try ScratchDirectory()
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("pooled")
        let pooler = try PgBouncer(for: server, users: ["postgres", "camlib_guest"])
        let library = scratch.file("pooled")
        _ = try camlib(["init", "--library", library, "--catalog", pooler.url(database: database)])
        _ = try camlib(["import", "--library", library, "--no-wait", Media.path("apple-live-photo"), Media.path("android-depth-motion")])
        _ = try camlib(["favorite", "--library", library, "1"])
        let pooled = try listings(library)
        #expect(pooled[0].contains("\"favorite\" : true") || pooled[0].contains("\"favorite\":true"), "\(pooled[0])")
        try (server.url(database: database) + "\n").write(toFile: library + "/catalog.url", atomically: true, encoding: .utf8)
        #expect(try listings(library) == pooled, "the same through PgBouncer as directly")
        #expect(try server.psql(database, "SHOW max_parallel_workers_per_gather").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(try server.psql(database, "SHOW jit").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "off")
        #expect(try server.psql(database, "SHOW cursor_tuple_fraction").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")

        // A database the library's user does not own: its setting stays the server's,
        // and each command's session sets it for itself.
        let guest = try server.createDatabase("guest")
        _ = try server.psql("postgres", "CREATE ROLE camlib_guest LOGIN")
        _ = try server.psql("postgres", "GRANT CREATE ON DATABASE \(guest) TO camlib_guest")
        _ = try server.psql(guest, "GRANT ALL ON SCHEMA public TO camlib_guest")
        let guestLibrary = scratch.file("guest")
        _ = try camlib(["init", "--library", guestLibrary, "--catalog", pooler.url(database: guest, user: "camlib_guest")])
        let trace = scratch.file("trace.sql")
        #expect(try camlib(["query", "--library", guestLibrary, "--json"], ["CAMLIB_SQL_TRACE": trace]).stdout.contains("[]"))
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("set_config('max_parallel_workers_per_gather', '0', false)"))
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("set_config('jit', 'off', false)"))
        #expect(try server.psql(guest, "SHOW max_parallel_workers_per_gather").stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "0")
        // The owner's library sets nothing more after its first command.
        try FileManager.default.removeItem(atPath: trace)
        _ = try camlib(["query", "--library", library, "--json"], ["CAMLIB_SQL_TRACE": trace])
        #expect(try !String(contentsOfFile: trace, encoding: .utf8).contains("set_config('max_parallel_workers_per_gather'"))
    }

    /// A listing by a name with a literal start reads asset_file_name's key alone: its
    /// rows lie scattered in PostgreSQL's heap, where SQLite keeps them in key order.
    /// A library made on PostgreSQL in `scratch`, with a Live Photo, a Portrait photo and
    /// the orientation set imported.
    func importedOnPostgres(_ label: String, _ scratch: ScratchDirectory) throws -> (server: PostgresServer, database: String, library: String) {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase(label)
        let library = scratch.file(label)
        _ = try camlib(["init", "--library", library, "--catalog", server.url(database: database)])
        _ = try camlib(["import", "--library", library, "--no-wait"] + Self.someOfTheCorpus)
        return (server, database, library)
    }

    static let someOfTheCorpus = [Media.path("apple-live-photo"), Media.path("apple-portrait-heic"), Media.path("orientation")]

    @Test func aNameRangeIsReadFromItsIndexAlone() throws {
        let scratch = try ScratchDirectory()
        let (server, database, library) = try importedOnPostgres("names", scratch)
        _ = try server.psql(database, "VACUUM asset_file_name")
        let trace = scratch.file("trace.sql")
        for arguments in [["--json"], ["--kind", "live", "--make", "Apple"], ["--sort", "name", "--reverse"], ["--sort", "imported", "--has", "depth"], ["--paired-by", "contentIdentifier", "--since", "2019-01-01"]] {
            _ = try camlib(["query", "--library", library, "--name", "IMG_*"] + arguments, ["CAMLIB_SQL_TRACE": trace])
        }
        let statements = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("FROM asset_file_name") }
        #expect(statements.count >= 5, "\(statements)")
        for statement in statements {
            // With a scan of the table or a bitmap over it ruled out, the key is the way
            // in; "Index Only" says it held every column the statement reads.
            let plan = try server.psql(database, "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN \(statement)").stdout
            #expect(plan.contains("Index Only Scan using asset_file_name_pkey") && !plan.contains("Index Scan using asset_file_name_pkey"), "\(statement)\n\(plan)")
        }
    }

    /// A date range in another order is estimated by the planner, not counted: the
    /// estimate comes from the column's histogram, and the listing is the same.
    @Test func aDateRangeIsEstimatedNotCounted() throws {
        let scratch = try ScratchDirectory()
        let (server, database, library) = try importedOnPostgres("range", scratch)
        _ = try server.psql(database, "ANALYZE")
        let trace = scratch.file("trace.sql")
        let arguments = ["query", "--library", library, "--since", "2000-01-01", "--until", "2030-12-31", "--sort", "name", "--json"]
        let listed = try camlib(arguments, ["CAMLIB_SQL_TRACE": trace]).stdout
        let statements = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(statements.contains("EXPLAIN SELECT asset_id FROM asset_summary") && !statements.contains("SELECT count(*)"), "\(statements)")
        #expect(listed.contains("IMG_"), "the range holds the corpus")
        let sqlite = scratch.file("sqlite")
        _ = try camlib(["import", "--library", sqlite, "--no-wait"] + Self.someOfTheCorpus)
        #expect(try PostgresLibraryTests.comparable(camlib(["query", "--library", sqlite] + arguments.dropFirst(3)).stdout, library: sqlite)
            == PostgresLibraryTests.comparable(listed, library: library))
    }

    @Test func aServerThatIsDownIsNamedAndNothingIsWritten() throws {
        let scratch = try ScratchDirectory()
        // A port nothing listens on: bound, then closed.
        let port = try freePort()
        let url = "postgresql://camlib:secret@127.0.0.1:\(port)/photos"
        let library = scratch.file("nowhere")
        let refused = try Camlib.run(["init", "--library", library, "--catalog", url])
        #expect(refused.status != 0 && refused.stderr.contains("127.0.0.1:\(port)") && !refused.stderr.contains("secret"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library))

        // A library whose catalog.url names a server that is down.
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try "postgresql://camlib@127.0.0.1:\(port)/photos\n".write(toFile: library + "/catalog.url", atomically: true, encoding: .utf8)
        for arguments in [["query"], ["show", "1"], ["import", Media.path("apple-live-photo/IMG_3582.HEIC")]] {
            let down = try Camlib.run([arguments[0], "--library", library] + arguments.dropFirst())
            #expect(down.status != 0 && down.stderr.contains("postgresql://camlib@127.0.0.1:\(port)/photos"), "\(arguments[0]): \(down.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library) == ["catalog.url"])
    }

    /// A TCP port of 127.0.0.1 that nothing listens on.
    func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, size) == 0, getsockname(fd, $0, &size) == 0 else { throw POSIXError(.EADDRINUSE) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
