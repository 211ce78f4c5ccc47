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
        placeholders = "(" + databaseQuestionMarks(count: length) + ")"
    }

    /// Records fetched with a cached statement of `sql(placeholders)`.
    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ db: Database, sql: (String) -> String) throws -> [Record] {
        try Record.fetchAll(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
    }

    /// Rows of a cached statement of `sql(placeholders)`.
    func fetchRows(_ db: Database, sql: (String) -> String) throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
    }

    func fetchSet<Value: DatabaseValueConvertible & StatementColumnConvertible & Hashable>(
        _ type: Value.Type, _ db: Database, sql: (String) -> String
    ) throws -> Set<Value> {
        try Value.fetchSet(db.cachedStatement(sql: sql(placeholders)), arguments: arguments)
    }
}
