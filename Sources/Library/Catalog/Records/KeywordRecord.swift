import GRDB

/// A row of `keyword` (0014).
struct KeywordRecord: Codable, Sendable {
    var id: Int64?
    var name: String
}

extension KeywordRecord: FetchableRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "keyword"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func named(_ name: String, _ db: any CatalogConnection) throws -> KeywordRecord? {
        try db.fetchAll(KeywordRecord.self, "SELECT * FROM keyword WHERE name = \(name)").first
    }

    /// Gives `asset` this keyword; false when it had it already.
    func tag(_ asset: Int64, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO asset_keyword (keyword_id, asset_id) VALUES (?, ?)").execute(arguments: [id, asset])
        return db.changesCount > 0
    }

    /// Takes this keyword from `asset`; false when it did not have it.
    func untag(_ asset: Int64, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM asset_keyword WHERE keyword_id = ? AND asset_id = ?").execute(arguments: [id, asset])
        return db.changesCount > 0
    }

    /// Deletes the keyword when no asset carries it any more.
    func deleteIfUnused(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM keyword WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM asset_keyword WHERE keyword_id = ?1)", arguments: [id])
    }

    /// Every keyword with how many assets carry it, by name (`keyword_overview`).
    static func overview(_ db: Database) throws -> [(name: String, assets: Int)] {
        try Row.fetchAll(db, sql: "SELECT name, assets FROM keyword_overview ORDER BY name").map { ($0[0], $0[1]) }
    }

    /// The keywords of each of these assets, by name.
    static func names(of assets: IDList, _ db: any CatalogConnection) throws -> [Int64: [String]] {
        let rows = try assets.fetchRows(db) {
            "SELECT x.asset_id, k.name FROM asset_keyword x JOIN keyword k ON k.id = x.keyword_id WHERE x.asset_id IN \($0) ORDER BY k.name"
        }
        return Dictionary(grouping: rows, by: { $0[0] as Int64? ?? 0 }).mapValues { $0.compactMap { $0[1] as String? } }
    }
}
