import GRDB

/// Ids as statement arguments, in lists of a few fixed lengths (16, 64, 256 or 512; the
/// unused places bound to NULL, which matches nothing). The SQL is then one of four texts
/// however many ids there are, so its prepared statement is reused (`cachedStatement`)
/// instead of parsed again for every page, which cost more than running it. (A JSON array
/// read with `json_each(?)` makes SQLite prepare the statement again on every binding.)
struct IDList {
    let arguments: StatementArguments
    /// `(?, ?, …)` for this list's length.
    let placeholders: String

    static let lengths = [16, 64, 256, 512]

    /// `ids` must not be longer than 512.
    init(_ ids: [Int64]) {
        precondition(ids.count <= Self.lengths.last!, "an IDList holds at most \(Self.lengths.last!) ids")
        let length = Self.lengths.first { $0 >= ids.count }!
        arguments = StatementArguments(ids.map { $0 as DatabaseValueConvertible? } + Array(repeating: nil, count: length - ids.count))
        placeholders = "(" + String(repeating: "?,", count: length - 1) + "?)"  // databaseQuestionMarks joins an array: slower
    }

    /// Records fetched with a cached statement of `sql(placeholders)`.
    ///
    /// Read row by row with `init(row:)` rather than through `Record.fetchAll`: that makes a
    /// `RecordCursor<Record>`, and the first use of each such generic type costs the Swift
    /// runtime a scan of every protocol conformance in the process to check `Record: FetchableRecord`, once per record type and process. A
    /// listing reads seven record types, and a `camlib query` process lives a few ms.
    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ db: Database, sql: (String) -> String) throws -> [Record] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
        var records: [Record] = []
        while let row = try rows.next() { records.append(try Record(row: row)) }
        return records
    }

    /// Rows of a cached statement of `sql(placeholders)`.
    func fetchRows(_ db: Database, sql: (String) -> String) throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
    }

    func fetchSet<Value: DatabaseValueConvertible & StatementColumnConvertible & Hashable>(
        _ type: Value.Type, _ db: Database, sql: (String) -> String
    ) throws -> Set<Value> {
        // Row by row, as `fetchAll` does and for the same reason.
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
        var values: Set<Value> = []
        while let row = try rows.next() { values.insert(row[0]) }
        return values
    }
}
