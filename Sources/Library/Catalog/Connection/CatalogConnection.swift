import GRDB

/// A connection to a catalog's database, whichever engine keeps it: a GRDB `Database`
/// (SQLite) or a ``PostgresSession``. The catalog layer's named requests are written
/// against this, once; where the engines differ in SQL, they ask the ``dialect``.
protocol CatalogConnection {
    var dialect: CatalogDialect { get }

    /// Runs `sql` and calls `body` with its rows in order until it returns false. A row is
    /// valid only during its call (GRDB reuses it): `copy()` one to keep it.
    func forEachRow(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws

    /// ``forEachRow(_:_:)`` for a `SELECT` whose rows may be too many to hold at once
    /// (a listing without a limit, a whole table): PostgreSQL's are read a page at a
    /// time through a cursor when a transaction is open, where ``forEachRow(_:_:)``
    /// receives the whole result first. Only a `SELECT` or `VALUES` may be given, and on
    /// PostgreSQL it costs two more round trips: a cursor's `DECLARE` and `CLOSE`.
    func forEachOfManyRows(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws

    /// Runs `sql` and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: CatalogSQL) throws -> Int
}

extension CatalogConnection {
    /// SQLite steps through a statement's rows as they are asked for already.
    func forEachOfManyRows(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws {
        try forEachRow(sql, body)
    }

    /// Every row of `sql`, kept.
    func rows(_ sql: CatalogSQL) throws -> [CatalogRow] {
        var rows: [CatalogRow] = []
        try forEachRow(sql) { rows.append($0.copy()); return true }
        return rows
    }

    /// The first column of the first row, nil when there is none or it is NULL.
    func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: CatalogSQL) throws -> Value? {
        var value: Value?
        try forEachRow(sql) { row in
            value = row[0]
            return false
        }
        return value
    }

    /// The first column of every row (NULLs left out).
    func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: CatalogSQL) throws -> [Value] {
        var values: [Value] = []
        try forEachRow(sql) { row in
            if let value: Value = row[0] { values.append(value) }
            return true
        }
        return values
    }

    /// How many rows the engine's planner expects `sql` to give, from its statistics
    /// (PostgreSQL's `EXPLAIN`); nil where the engine keeps none (SQLite).
    func plannedRows(_ sql: CatalogSQL) throws -> Int? {
        guard dialect == .postgres, let plan = try fetchOne(String.self, "EXPLAIN " + sql),
            let rows = plan.firstMatch(of: /rows=(\d+)/)
        else { return nil }
        return Int(rows.1)
    }

    /// Records of `sql`: a ``CatalogRecord`` read by position, any other `FetchableRecord`
    /// decoded by column name, on either backend.
    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ sql: CatalogSQL) throws -> [Record] {
        var records: [Record] = []
        if let positional = type as? any CatalogRecord.Type {
            try forEachRow(sql) { row in
                records.append(try positional.init(row: row) as! Record)
                return true
            }
        } else {
            try forEachRow(sql) { row in
                records.append(try Record(row: row.row))
                return true
            }
        }
        return records
    }
}

/// A record read from a row by position (its columns selected in a known order): the
/// same code for either backend, and no column looked up by name for every row.
protocol CatalogRecord {
    init(row: CatalogRow) throws
}

/// A table's record read by position: its ``CodingKeys`` are the columns it reads, in
/// the order `init(row: CatalogRow)` reads them. Every request of it selects them in that
/// order (not `*`), and SQL written out selects ``selection(of:)`` (a statement may add
/// columns of its own after them). By name, each column would be found again for every
/// row of the hundreds a page reads; on PostgreSQL through a GRDB row whose every
/// look-up lower-cases the column names before it.
protocol PositionalRecord: CatalogRecord, FetchableRecord, TableRecord, Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension PositionalRecord {
    static var databaseSelection: [any SQLSelectable] { CodingKeys.allCases.map { Column($0.stringValue) } }

    /// The record's columns, in ``CodingKeys`` order, of the table or view aliased `alias`.
    static func selection(of alias: String) -> String {
        CodingKeys.allCases.map { "\(alias).\($0.stringValue)" }.joined(separator: ", ")
    }

    init(row: Row) throws {
        try self.init(row: CatalogRow(row))
    }

    /// Whether `row` starts with this record's columns, in order (for assertions).
    static func isSelected(in row: CatalogRow) -> Bool {
        Array(row.columnNames.prefix(CodingKeys.allCases.count)) == CodingKeys.allCases.map(\.stringValue)
    }
}

/// One row of a result: GRDB's own on SQLite, the decoded values on PostgreSQL.
struct CatalogRow {
    private enum Storage {
        case sqlite(Row)
        case values(columns: [String], values: [DatabaseValue])
    }

    private let storage: Storage

    init(_ row: Row) {
        storage = .sqlite(row)
    }

    init(columns: [String], values: [DatabaseValue]) {
        storage = .values(columns: columns, values: values)
    }

    /// The value of column `index`, nil when NULL or not convertible.
    subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value? {
        switch storage {
        case .sqlite(let row): Value.fromDatabaseValue(row[index] as DatabaseValue)
        case .values(_, let values): Value.fromDatabaseValue(values[index])
        }
    }

    /// The value of column `index`, which must be there: NULL, or a value of another
    /// kind, is an error naming the column (a damaged or hand-edited catalog).
    func required<Value: DatabaseValueConvertible>(_ index: Int) throws -> Value {
        let value: DatabaseValue =
            switch storage {
            case .sqlite(let row): row[index]
            case .values(_, let values): values[index]
            }
        guard let converted = Value.fromDatabaseValue(value) else {
            throw LibraryError.damagedCatalog(path: "(the catalog)", detail: "column \(columnNames[index]) holds \(value) where a \(Value.self) belongs")
        }
        return converted
    }

    /// The names of the columns, in order.
    var columnNames: [String] {
        switch storage {
        case .sqlite(let row): Array(row.columnNames)
        case .values(let columns, _): columns
        }
    }

    /// The row as GRDB's `Row`, for a record's `init(row:)` that reads by name.
    var row: Row {
        switch storage {
        case .sqlite(let row): row
        case .values(let columns, let values):
            Row(Dictionary(zip(columns, values.map { $0 as (any DatabaseValueConvertible)? }), uniquingKeysWith: { first, _ in first }))
        }
    }

    func copy() -> CatalogRow {
        switch storage {
        case .sqlite(let row): CatalogRow(row.copy())
        case .values: self
        }
    }
}
