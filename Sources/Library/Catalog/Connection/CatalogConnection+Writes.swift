import GRDB

/// A record with a row id the catalog chooses as it is inserted.
protocol CatalogIdentified {
    var id: Int64? { get set }
}

/// Writes written once for both backends: a record's insert from its GRDB encoding (the
/// same column names in both schemas), and savepoints, which SQLite and PostgreSQL spell
/// alike.
extension CatalogConnection {
    /// Inserts `record`, its columns as GRDB encodes them; an `id` still nil is left to
    /// the catalog. Returns the new row's id (nil for a table without one, or when
    /// `onConflict` kept the row from being inserted).
    @discardableResult
    func insert<Record: EncodableRecord & TableRecord>(_ record: Record, onConflict: CatalogSQL? = nil) throws -> Int64? {
        var values = try record.databaseDictionary
        let hasID = values.keys.contains("id")
        if values["id"]?.isNull == true { values["id"] = nil }
        let columns = values.keys.sorted()
        // Quoted: a column may be a keyword (`offset`) on one engine only.
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        var sql = CatalogSQL(sql: "INSERT INTO \(Record.databaseTableName) (\(names)) VALUES ")
        sql += "\(columns.map { values[$0]! })"
        if let onConflict { sql += " ON CONFLICT " + onConflict }
        guard hasID else {
            try execute(sql)
            return nil
        }
        return try fetchOne(Int64.self, sql + " RETURNING id")
    }

    /// Inserts `record` and sets its id to the new row's.
    func insert<Record: EncodableRecord & TableRecord & CatalogIdentified>(_ record: inout Record) throws {
        record.id = try insert(record)
    }

    /// Runs `body` in a savepoint of the caller's transaction: what it wrote is undone when
    /// it throws, and the transaction goes on (on PostgreSQL, a failed statement otherwise
    /// aborts the whole transaction). With `undo`, it is undone anyway (a dry run).
    func savepoint<T>(undo: Bool = false, _ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT camlib")
        do {
            let result = try body()
            if undo { try execute("ROLLBACK TO SAVEPOINT camlib") }
            try execute("RELEASE SAVEPOINT camlib")
            return result
        } catch {
            try execute("ROLLBACK TO SAVEPOINT camlib")
            try execute("RELEASE SAVEPOINT camlib")
            throw error
        }
    }
}
