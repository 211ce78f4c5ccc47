import Crypto
import Foundation
import GRDB
import PostgresNIO

/// Copies a SQLite catalog into an empty PostgreSQL one, row for row with the same ids,
/// and checks the copy before it is committed: each table's count and a checksum of its
/// rows, read back from the server, must equal SQLite's. The summary tables
/// (`asset_summary`, `asset_file_name`, `asset_place`, made by PostgreSQL's triggers from the copied
/// rows) are checked the same way, so a copy whose listings would differ is refused.
/// Nothing is committed unless every table agrees; the SQLite catalog is only read.
public struct CatalogCopy {
    /// The tables copied, parents before the rows that refer to them. `camera` comes
    /// first so the cameras that the summary's triggers name keep SQLite's ids.
    static let copied = [
        "camera", "place", "asset", "resource", "metadata", "pairing", "embedded_movie", "adjustment", "adjustment_render", "asset_version",
        "preference", "aux_image", "trashed_asset", "file_removal", "favorite", "album", "album_asset", "keyword", "asset_keyword", "job",
        "worker",
    ]
    /// The summary tables, which triggers make from the copied ones.
    public static let derived = derivedRows(lower: "lower").map(\.table)

    /// What a copy is doing, said as each stage ends: long at a million assets, the
    /// check as long as the copy.
    public enum Progress: Sendable, Equatable {
        /// A table's rows are in the new catalog.
        case copied(table: String, rows: Int)
        /// The summary tables are made (PostgreSQL's bulk rebuild) or checked against
        /// what SQLite's triggers make of the copied rows (a copy back), and its name
        /// index made.
        case summarised
        /// A table is read again on both sides and its rows and checksum are equal.
        case checked(table: String, rows: Int)
    }

    /// What a copy did, table by table.
    public struct Report: Sendable, Equatable {
        public struct Table: Sendable, Equatable, Codable {
            public var name: String
            public var rows: Int
            /// SHA-256 of the rows' canonical form, equal on both sides.
            public var checksum: String
        }
        var tables: [Table] = []
    }

    /// A column of the PostgreSQL table and how its values cross over.
    private struct Column {
        var name: String
        var type: String
        var quoted: String { "\"\(name)\"" }
        /// Read back as a type the checksum knows.
        var readBack: String {
            switch type {
            case "json": "\(quoted)::text"
            case "integer", "smallint": "\(quoted)::bigint"
            default: quoted
            }
        }
    }

    let source: Catalog
    let target: PostgresCatalog
    /// Rows per INSERT statement (PostgreSQL takes at most 65,535 parameters).
    var batch = 500

    /// Copies and checks; `progress` hears each stage as it ends.
    func run(progress: (Progress) -> Void = { _ in }) throws -> Report {
        try source.sqliteRead { db in try run(db, progress: progress) }
    }

    /// ``run(progress:)`` reading the source through `db`: inside a write transaction, so
    /// that nothing changes the SQLite catalog after it is copied.
    func run(_ db: Database, progress: (Progress) -> Void = { _ in }) throws -> Report {
        try target.write { session in
            let assets = try session.query("SELECT count(*) FROM asset").first?.decode(Int64.self) ?? 0
            guard assets == 0 else {
                throw PostgresCatalogError.notEmpty(url: target.location.description, assets: Int(assets))
            }
            let bulk = try Self.holdTriggers(session)
            for table in Self.copied {
                let columns = try Self.columns(of: table, session)
                progress(.copied(table: table, rows: try copy(table, columns, db, session)))
            }
            if bulk {
                try Self.rebuildDerivedTables(session)
                progress(.summarised)
            }
            try Self.setSequences(db, session)
            // Checked before it is committed: a copy that differs is rolled back.
            let report = try Self.check(db, session, url: target.location.description, progress: progress)
            // Statistics for the planner at once, as after a restore: autovacuum would
            // gather them only later, and listings choose plans by its estimates.
            try session.query("ANALYZE")
            return report
        }
    }

    /// Compares every table of the two catalogs, counts and checksums, and returns them;
    /// throws naming the first table that differs.
    func check() throws -> Report {
        // In a transaction: the server's side is read through a cursor.
        try source.sqliteRead { db in try target.write { session in try Self.check(db, session, url: target.location.description) } }
    }

    private static func check(_ db: Database, _ session: PostgresSession, url: String, progress: (Progress) -> Void = { _ in }) throws -> Report {
        var report = Report()
        for table in Self.copied + Self.derived {
            let columns = try Self.columns(of: table, session)
            let key = try Self.primaryKey(of: table, session)
            let checked = try compare(table, columns, key: key, db, session, url: url)
            report.tables.append(checked)
            progress(.checked(table: table, rows: checked.rows))
        }
        return report
    }

    /// Copies one table; returns its rows.
    private func copy(_ table: String, _ columns: [Column], _ db: Database, _ session: PostgresSession) throws -> Int {
        let names = columns.map(\.quoted).joined(separator: ", ")
        // A thumbnail's row after the file it shows; an edit after the one it extends.
        let order = table == "resource" ? "derived_from IS NOT NULL, id" : try Self.primaryKey(of: table, session).map { "\"\($0)\"" }.joined(separator: ", ")
        let rows = try Row.fetchCursor(db, sql: "SELECT \(names) FROM \(table) ORDER BY \(order)")
        var pending: [Row] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            var values: [(any PostgresThrowingDynamicTypeEncodable)?] = []
            var tuples: [String] = []
            for row in pending {
                var placeholders: [String] = []
                for (index, column) in columns.enumerated() {
                    values.append(try Self.value(row[index], as: column, table: table))
                    placeholders.append("$\(values.count)::\(column.type)")
                }
                tuples.append("(\(placeholders.joined(separator: ", ")))")
            }
            try session.query("INSERT INTO \(table) (\(names)) VALUES \(tuples.joined(separator: ", "))", values)
            pending.removeAll(keepingCapacity: true)
        }
        let rowsPerStatement = max(1, min(batch, 60_000 / max(1, columns.count)))
        var copied = 0
        while let row = try rows.next() {
            pending.append(row.copy())
            copied += 1
            if pending.count == rowsPerStatement { try flush() }
        }
        try flush()
        return copied
    }

    /// A SQLite value as the PostgreSQL column's type takes it.
    private static func value(_ value: DatabaseValue, as column: Column, table: String) throws -> (any PostgresThrowingDynamicTypeEncodable)? {
        switch value.storage {
        case .null: return nil
        case .int64(let number):
            switch column.type {
            case "double precision": return Double(number)
            case "text", "json": return String(number)
            default: return number
            }
        case .double(let number):
            switch column.type {
            case "bigint", "integer", "smallint": return Int64(exactly: number) ?? Int64(number.rounded())
            case "text", "json": return String(number)
            default: return number
            }
        case .string(let text):
            switch column.type {
            case "bigint", "integer", "smallint":
                guard let number = Int64(text) else { throw CopyError.value(table, column.name, text) }
                return number
            case "double precision":
                guard let number = Double(text) else { throw CopyError.value(table, column.name, text) }
                return number
            default: return text
            }
        case .blob:
            throw CopyError.value(table, column.name, "a blob")
        }
    }

    enum CopyError: Error, CustomStringConvertible {
        case value(String, String, String)
        var description: String {
            switch self {
            case .value(let table, let column, let value): "\(table).\(column) holds \(value), which its PostgreSQL column cannot take"
            }
        }
    }

    // MARK: Sequences

    /// The tables whose rows camlib's triggers summarise (``derived``).
    static let summarised = ["asset", "resource", "metadata", "pairing", "asset_version", "adjustment_render", "trashed_asset", "aux_image", "asset_summary"]

    /// Holds camlib's own triggers of the copied tables for the copy's transaction, so
    /// that the derived tables are made once at its end rather than again for every
    /// row (a summary for each file's row: hours at a million assets). Needs the
    /// tables' owner, the role that made the catalog; another role copies row by row,
    /// the triggers working as they go. Returns whether they are held.
    private static func holdTriggers(_ session: PostgresSession) throws -> Bool {
        try session.query("SAVEPOINT hold_triggers")
        do {
            for table in summarised { try session.query("ALTER TABLE \(table) DISABLE TRIGGER USER") }
            try session.query("RELEASE SAVEPOINT hold_triggers")
            return true
        } catch {
            try session.query("ROLLBACK TO SAVEPOINT hold_triggers")
            try session.query("RELEASE SAVEPOINT hold_triggers")
            return false
        }
    }

    /// Each derived table (``derived``) as the triggers make it from the copied rows, in
    /// the order they are made (the file names read the summary): the rows a copy to
    /// PostgreSQL inserts at its end, and those a copy back checks SQLite's against.
    /// `lower`: the dialect's ASCII-only lower case (SQLite's `lower`; `ascii_lower` on
    /// PostgreSQL, whose `lower` follows the collation).
    static func derivedRows(lower: String) -> [(table: String, rows: String)] {
        [
            ("asset_summary", "SELECT * FROM asset_summary_source"),
            ("asset_file_name", """
                SELECT \(lower)(r.original_name), r.id, r.asset_id,
                       s.kind, s.captured_julian, s.imported_at, s.camera_id, s.sort_name, s.paired_by, s.aux_types, s.edited
                FROM resource r LEFT JOIN asset_summary s ON s.asset_id = r.asset_id
                WHERE r.original_name IS NOT NULL
                """),
            ("asset_place", """
                SELECT DISTINCT r.asset_id, m.place_id FROM metadata m JOIN resource r ON r.id = m.resource_id
                WHERE m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video')
                """),
        ]
    }

    /// Makes the summary and the file names from the copied rows, as the triggers would
    /// have row by row, and lets the triggers work again.
    private static func rebuildDerivedTables(_ session: PostgresSession) throws {
        for (table, rows) in derivedRows(lower: "ascii_lower") { try session.query("INSERT INTO \(table) \(rows)") }
        for table in summarised { try session.query("ALTER TABLE \(table) ENABLE TRIGGER USER") }
    }

    /// Each identity column goes on after the highest id SQLite ever gave out (its
    /// `sqlite_sequence`, which counts deleted rows too), so no id is given twice.
    private static func setSequences(_ db: Database, _ session: PostgresSession) throws {
        let given = Dictionary(
            try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence").map { ($0[0] as String, $0[1] as Int64) }, uniquingKeysWith: max)
        let identities = try session.query(
            "SELECT table_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'")
        for row in identities {
            let table = try row.decode(String.self)
            let highest = try session.query("SELECT coalesce(max(id), 0) FROM \(table)").first?.decode(Int64.self) ?? 0
            let next = max(highest, given[table] ?? 0)
            guard next > 0 else { continue }
            try session.query("SELECT setval(pg_get_serial_sequence($1, 'id'), $2)", [table, next])
        }
    }

    // MARK: Schema

    private static func columns(of table: String, _ session: PostgresSession) throws -> [Column] {
        try session.query(
            """
            SELECT column_name::text, data_type::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
            """, [table]
        ).map { row in
            let (name, type) = try row.decode((String, String).self)
            return Column(name: name, type: type)
        }
    }

    private static func primaryKey(of table: String, _ session: PostgresSession) throws -> [String] {
        try session.query(
            """
            SELECT a.attname::text FROM pg_index i
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = $1::regclass AND i.indisprimary
            ORDER BY array_position(i.indkey, a.attnum)
            """, [table]
        ).map { try $0.decode(String.self) }
    }

    // MARK: Checksums

    /// A value's canonical form: the same for a value in SQLite and its copy in PostgreSQL.
    private enum Canonical {
        static func integer(_ value: Int64?) -> String { value.map { "i\($0)" } ?? "n" }
        static func real(_ value: Double?) -> String { value.map { "r\(String($0.bitPattern, radix: 16))" } ?? "n" }
        static func text(_ value: String?) -> String { value.map { "t\($0.utf8.count):\($0)" } ?? "n" }
    }

    /// Walks the table on both sides in key order, hashing each row's canonical form;
    /// the first row that differs is named by its key and its columns that differ.
    private static func compare(_ table: String, _ columns: [Column], key: [String], _ db: Database, _ session: PostgresSession, url: String) throws
        -> Report.Table
    {
        let order = key.map { "\"\($0)\"" }.joined(separator: ", ")
        let keyIndexes = key.compactMap { name in columns.firstIndex { $0.name == name } }
        var hash = SHA256()
        var count = 0
        let local = try Row.fetchCursor(db, sql: "SELECT \(columns.map(\.quoted).joined(separator: ", ")) FROM \(table) ORDER BY \(order)")
        try session.query("DECLARE camlib_check NO SCROLL CURSOR FOR SELECT \(columns.map(\.readBack).joined(separator: ", ")) FROM \(table) ORDER BY \(order)")
        defer { _ = try? session.query("CLOSE camlib_check") }
        func differs(_ detail: String) -> PostgresCatalogError { .copyDiffers(url: url, table: table, detail: detail) }
        while true {
            let page = try session.query("FETCH 2000 FROM camlib_check")
            for row in page {
                let copied = try canonical(row, columns)
                guard let original = try local.next().map({ canonical($0, columns) }) else {
                    throw differs("PostgreSQL has more rows than SQLite's \(count), from the row with key \(keyIndexes.map { copied[$0] })")
                }
                if copied != original {
                    let which = columns.indices.filter { copied[$0] != original[$0] }
                        .map { "\(columns[$0].name) is \(original[$0]) in SQLite, \(copied[$0]) in PostgreSQL" }
                    throw differs("the row with key \(keyIndexes.map { original[$0] }.joined(separator: ", ")): \(which.joined(separator: "; "))")
                }
                hash.update(data: Data((original.joined(separator: "|") + "\n").utf8))
                count += 1
            }
            if page.isEmpty { break }
        }
        if try local.next() != nil { throw differs("SQLite has more rows than the \(count) in PostgreSQL") }
        return Report.Table(name: table, rows: count, checksum: hash.finalize().hexString)
    }

    private static func canonical(_ row: Row, _ columns: [Column]) -> [String] {
        columns.indices.map { index in
            let value = row[index] as DatabaseValue
            return switch columns[index].type {
            case "bigint", "integer", "smallint": Canonical.integer(Int64.fromDatabaseValue(value))
            case "double precision": Canonical.real(Double.fromDatabaseValue(value))
            default: Canonical.text(value.isNull ? nil : (String.fromDatabaseValue(value) ?? value.description))
            }
        }
    }

    private static func canonical(_ row: PostgresRow, _ columns: [Column]) throws -> [String] {
        let cells = row.makeRandomAccess()
        return try columns.indices.map { index in
            let cell = cells[index]
            return switch columns[index].type {
            case "bigint", "integer", "smallint": Canonical.integer(try cell.decode(Int64?.self))
            case "double precision": Canonical.real(try cell.decode(Double?.self))
            default: Canonical.text(try cell.decode(String?.self))
            }
        }
    }
}

extension CatalogCopy {
    /// Copies the PostgreSQL catalog, as one state of it, into `db`: a new SQLite catalog,
    /// migrated and empty, row for row with the same ids, and checks every table as a copy
    /// the other way is checked, before the caller commits. `progress` hears each stage as
    /// it ends.
    ///
    /// SQLite's triggers are held for the copy (`holdingTriggers`), as the copy the other
    /// way holds PostgreSQL's: fired for every row, they rewrite an asset's summary for
    /// each of its files (SQLite alone took 114 s to take 100,000 assets' rows with them,
    /// 3.7 s without). The summary tables are copied from the server instead (its
    /// triggers made them from the same rows, and the check compares them with SQLite's),
    /// the full-text index of names is made from the summary and checked, and the
    /// triggers are made again, all in the caller's transaction. `holdingTriggers: false`
    /// copies row by row with them working.
    ///
    /// The connection's page cache is 16 MB for the copy (SQLite's default is 2 MB): with
    /// the default, the indexes' pages went in and out of it for every few rows, and the
    /// resource table alone took 69 of the copy's 99 s (16 s with it).
    static func back(
        from postgres: PostgresCatalog, into db: Database, holdingTriggers: Bool = true, progress: (Progress) -> Void = { _ in }
    ) throws -> Report {
        let url = postgres.location.description
        let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -16384")  // KiB
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
        return try postgres.read { session in
            let held = holdingTriggers ? try holdTriggers(db) : []
            for table in copied + (holdingTriggers ? derived : []) {
                let columns = try columns(of: table, session)
                let order = table == "resource" ? "derived_from IS NOT NULL, id" : try primaryKey(of: table, session).map { "\"\($0)\"" }.joined(separator: ", ")
                let insert = try db.makeStatement(
                    sql: "INSERT INTO \(table) (\(columns.map(\.quoted).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
                var rows = 0
                try session.forEachOfManyRows(CatalogSQL(sql: "SELECT \(columns.map(\.readBack).joined(separator: ", ")) FROM \(table) ORDER BY \(order)")) { row in
                    try insert.execute(arguments: StatementArguments(columns.indices.map { row[$0] as DatabaseValue? ?? .null }))
                    rows += 1
                    return true
                }
                progress(.copied(table: table, rows: rows))
            }
            if holdingTriggers {
                try checkSummaries(db, url: url)
                try restoreTriggers(held, db)
                progress(.summarised)
            }
            // Ids go on after the highest PostgreSQL gave out, deleted rows' included.
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_sequence") {
                let given = try session.fetchOne(Int64.self, "SELECT pg_sequence_last_value(pg_get_serial_sequence(\(table), 'id'))") ?? 0
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [given, table])
            }
            return try check(db, session, url: url, progress: progress)
        }
    }

    /// Drops the SQLite catalog's triggers, in the open transaction, and returns their
    /// statements to make them again with.
    private static func holdTriggers(_ db: Database) throws -> [String] {
        let triggers = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid")
        for trigger in triggers {
            let name: String = trigger["name"]
            try db.execute(sql: "DROP TRIGGER \"\(name)\"")
        }
        return triggers.map { $0["sql"] }
    }

    /// The summary tables copied from the server must hold exactly what SQLite's
    /// triggers would have made of the copied rows, or the copy fails naming the table
    /// (the check after it compares them with the server's, which they come from).
    private static func checkSummaries(_ db: Database, url: String) throws {
        for (table, rows) in derivedRows(lower: "lower") {
            let missing = try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(rows) EXCEPT SELECT * FROM \(table))") ?? 0
            let extra = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM \(table) EXCEPT \(rows))") ?? 0
            guard missing == 0, extra == 0 else {
                throw PostgresCatalogError.copyDiffers(
                    url: url, table: table,
                    detail: "the server's rows differ from what SQLite makes of the copied ones (\(missing) missing, \(extra) not made)")
            }
        }
    }

    /// After a copy with the triggers held: the full-text index of the summary's names
    /// made from the copied summary, and checked against it (an index that disagrees
    /// fails the copy), and the triggers made again.
    private static func restoreTriggers(_ statements: [String], _ db: Database) throws {
        try db.execute(sql: "INSERT INTO asset_summary_names (asset_summary_names) VALUES ('rebuild')")
        try db.execute(sql: "INSERT INTO asset_summary_names (asset_summary_names, rank) VALUES ('integrity-check', 1)")
        for statement in statements { try db.execute(sql: statement) }
    }
}
