import GRDB

/// A SQLite catalog's connection: statements prepared once and cached by GRDB, as a
/// long-lived process runs the same few again and again.
extension Database: CatalogConnection {
    var dialect: CatalogDialect { .sqlite }

    func forEachRow(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws {
        let rows = try Row.fetchCursor(cachedStatement(sql: sql.text), arguments: StatementArguments(sql.arguments))
        while let row = try rows.next() {
            guard try body(CatalogRow(row)) else { return }
        }
    }

    @discardableResult
    func execute(_ sql: CatalogSQL) throws -> Int {
        try cachedStatement(sql: sql.text).execute(arguments: StatementArguments(sql.arguments))
        return changesCount
    }
}
