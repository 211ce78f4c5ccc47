/// Where SQLite's SQL and PostgreSQL's differ, the pieces each engine writes. The rest of
/// a statement, and the plan that chose it, is the same on both.
enum CatalogDialect: Sendable {
    case sqlite
    case postgres

    /// Tells SQLite which index to read (`INDEXED BY`): its planner, without statistics,
    /// often guesses wrong. PostgreSQL chooses from its statistics and has no such clause.
    func indexedBy(_ index: String) -> CatalogSQL {
        self == .sqlite ? CatalogSQL(sql: "INDEXED BY \(index)") : ""
    }

    /// `asset_summary` as `s`, to be read through `index`, the one that `conditions` (on
    /// its columns) select from, and sorted: SQLite is told the index; PostgreSQL is given
    /// the selected rows in a subquery its planner keeps apart (`OFFSET 0`), since it
    /// would otherwise walk the order's own index past every row outside them (a month
    /// of a million assets sorted by name: 7.9 ms walking the name index, 5.5 ms sorting).
    func summary(readThrough index: String, selecting conditions: [CatalogSQL]) -> CatalogSQL {
        switch self {
        case .sqlite: CatalogSQL(sql: "asset_summary s INDEXED BY \(index)")
        case .postgres: "(SELECT * FROM asset_summary WHERE \(conditions.joined(separator: " AND ")) OFFSET 0) s"
        }
    }

    /// Tells SQLite to read the table itself, in id order, not an index.
    var notIndexed: CatalogSQL {
        self == .sqlite ? "NOT INDEXED" : ""
    }

    /// Whether `value` matches the GLOB `pattern` (`*`, `?`, `[…]`, case kept): SQLite's
    /// own operator, or the `glob` function of camlib's PostgreSQL schema.
    func glob(_ value: CatalogSQL, _ pattern: CatalogSQL) -> CatalogSQL {
        self == .sqlite ? "\(value) GLOB \(pattern)" : "glob(\(pattern), \(value))"
    }

    /// Whether `text` contains `part`.
    func contains(_ text: CatalogSQL, _ part: CatalogSQL) -> CatalogSQL {
        self == .sqlite ? "instr(\(text), \(part)) > 0" : "strpos(\(text), \(part)) > 0"
    }

    /// Whether `text` matches the LIKE `pattern` (``SQLPattern``), ignoring the case of
    /// ASCII letters only, as SQLite's LIKE does.
    func like(_ text: CatalogSQL, _ pattern: String) -> CatalogSQL {
        switch self {
        case .sqlite: "\(text) LIKE \(pattern) ESCAPE '\\'"
        case .postgres: "ascii_lower(\(text)) LIKE ascii_lower(\(pattern)) ESCAPE '\\'"
        }
    }

    /// Whether `subquery`, correlated with the row being tested, gives a row, tested row
    /// by row. SQLite runs an `EXISTS` so; PostgreSQL, under an `OR`, plans it as a hashed
    /// subplan that reads every match before the first row is tested (the 122,000
    /// assets of a lens: 1.2 s for a page of 51), but runs a scalar subquery per row.
    func exists(_ subquery: CatalogSQL) -> CatalogSQL {
        self == .sqlite ? "EXISTS (\(subquery))" : "(\(subquery) LIMIT 1) IS NOT NULL"
    }

    /// A line feed, as SQL.
    var newline: CatalogSQL {
        self == .sqlite ? "char(10)" : "chr(10)"
    }

    /// The catalog's clock, as its `*_at` columns hold time (`2026-11-27T05:50:30.123Z`).
    var now: CatalogSQL {
        self == .sqlite ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" : "catalog_now()"
    }

    /// The catalog's clock `seconds` from now (before now when negative), as ``now``.
    func later(_ seconds: Double) -> CatalogSQL {
        switch self {
        case .sqlite: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', \(String(format: "%+.3f seconds", seconds)))"
        case .postgres: "catalog_later(\(seconds))"
        }
    }

    /// Seconds from now until `time` (a `*_at` column), negative when past.
    func secondsUntil(_ time: CatalogSQL) -> CatalogSQL {
        switch self {
        case .sqlite: "((julianday(\(time)) - julianday('now')) * 86400)"
        case .postgres: "CAST(extract(epoch FROM (CAST(\(time) AS timestamptz) - clock_timestamp())) AS double precision)"
        }
    }

    /// Locks the rows a `SELECT` reads until the transaction ends, skipping those another
    /// transaction holds: PostgreSQL's row locks; SQLite's one writer needs none.
    var forUpdateSkipLocked: CatalogSQL {
        self == .sqlite ? "" : " FOR UPDATE SKIP LOCKED"
    }

    /// Locks the rows a `SELECT` reads until the transaction ends (waiting for another
    /// transaction that holds them).
    var forUpdate: CatalogSQL {
        self == .sqlite ? "" : " FOR UPDATE"
    }

    /// Keeps the rows a `SELECT` reads from changing until the transaction ends.
    var forShare: CatalogSQL {
        self == .sqlite ? "" : " FOR SHARE"
    }

    /// The greater of two numbers.
    func greatest(_ a: CatalogSQL, _ b: CatalogSQL) -> CatalogSQL {
        self == .sqlite ? "max(\(a), \(b))" : "greatest(\(a), \(b))"
    }

    /// The smaller of two numbers.
    func least(_ a: CatalogSQL, _ b: CatalogSQL) -> CatalogSQL {
        self == .sqlite ? "min(\(a), \(b))" : "least(\(a), \(b))"
    }

    /// The ids of the assets whose names (`asset_summary.names`, lower case) hold each of
    /// `trigrams`: SQLite's FTS5 trigram table (0010), PostgreSQL's `pg_trgm` index.
    func assetsWithNamesHolding(_ trigrams: [String]) -> CatalogSQL {
        switch self {
        case .sqlite:
            // FTS5 phrases: in double quotes, their own doubled.
            let match = trigrams.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
            return "SELECT rowid FROM asset_summary_names WHERE asset_summary_names MATCH \(match)"
        case .postgres:
            let held: [CatalogSQL] = trigrams.map { trigram in
                let escaped = trigram.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                return "names LIKE \("%" + escaped + "%")"
            }
            return "SELECT asset_id FROM asset_summary WHERE " + held.joined(separator: " AND ")
        }
    }
}
