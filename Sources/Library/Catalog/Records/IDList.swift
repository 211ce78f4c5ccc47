import GRDB

/// Ids as statement arguments, in lists of a few fixed lengths (16, 64, 256 or 512; the
/// unused places bound to NULL, which matches nothing). The SQL is then one of four texts
/// however many ids there are, so its prepared statement is reused (`cachedStatement`)
/// instead of parsed again for every page, which cost more than running it. (A JSON array
/// read with `json_each(?)` makes SQLite prepare the statement again on every binding.)
struct IDList {
    let arguments: [DatabaseValue]
    /// `(?, ?, …)` for this list's length.
    let placeholders: String

    static let lengths = [16, 64, 256, 512]

    /// `ids` must not be longer than 512.
    init(_ ids: [Int64]) {
        precondition(ids.count <= Self.lengths.last!, "an IDList holds at most \(Self.lengths.last!) ids")
        let length = Self.lengths.first { $0 >= ids.count }!
        arguments = ids.map(\.databaseValue) + Array(repeating: .null, count: length - ids.count)
        placeholders = "(" + String(repeating: "?,", count: length - 1) + "?)"  // databaseQuestionMarks joins an array: slower
    }

    /// `ids` in lists of at most 512, in order: for a set of any size.
    static func lists(of ids: [Int64]) -> [IDList] {
        let most = lengths.last!
        return stride(from: 0, to: ids.count, by: most).map { IDList(Array(ids[$0..<min(ids.count, $0 + most)])) }
    }

    /// The statement `sql(placeholders)` with these ids bound, once for each place the
    /// list stands in it.
    func statement(_ sql: (String) -> String) -> CatalogSQL {
        let text = sql(placeholders)
        let uses = max(1, text.components(separatedBy: placeholders).count - 1)
        return CatalogSQL(sql: text, arguments: uses == 1 ? arguments : Array(repeating: arguments, count: uses).flatMap { $0 })
    }

    /// Records of the statement `sql(placeholders)`.
    ///
    /// Read row by row with `init(row:)` rather than through `Record.fetchAll`: that makes a
    /// `RecordCursor<Record>`, and the first use of each such generic type costs the Swift
    /// runtime a scan of every protocol conformance in the process to check `Record: FetchableRecord`, once per record type and process. A
    /// listing reads seven record types, and a `camlib query` process lives a few ms.
    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ db: any CatalogConnection, sql: (String) -> String) throws -> [Record] {
        try db.fetchAll(type, statement(sql))
    }

    /// Rows of the statement `sql(placeholders)`.
    func fetchRows(_ db: any CatalogConnection, sql: (String) -> String) throws -> [CatalogRow] {
        try db.rows(statement(sql))
    }

    /// The first column of the statement's rows, as a set.
    func fetchSet<Value: DatabaseValueConvertible & Hashable>(_ type: Value.Type, _ db: any CatalogConnection, sql: (String) -> String) throws -> Set<Value> {
        Set(try db.fetchAll(type, statement(sql)))
    }
}
