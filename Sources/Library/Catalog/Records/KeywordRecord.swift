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
    func tag(_ asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("INSERT INTO asset_keyword (keyword_id, asset_id) VALUES (\(id), \(asset)) ON CONFLICT DO NOTHING") > 0
    }

    /// Takes this keyword from `asset`; false when it did not have it.
    func untag(_ asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("DELETE FROM asset_keyword WHERE keyword_id = \(id) AND asset_id = \(asset)") > 0
    }

    /// Deletes the keyword when no asset carries it any more.
    func deleteIfUnused(_ db: any CatalogConnection) throws {
        try db.execute("DELETE FROM keyword WHERE id = \(id) AND NOT EXISTS (SELECT 1 FROM asset_keyword WHERE keyword_id = \(id))")
    }

    /// Every keyword with how many assets carry it, by name (`keyword_overview`).
    static func overview(_ db: any CatalogConnection) throws -> [(name: String, assets: Int)] {
        try db.rows("SELECT name, assets FROM keyword_overview ORDER BY name").map { (try $0.required(0), try $0.required(1)) }
    }

    /// Every keyword's id and name: a few thousand rows at most.
    static func allNames(_ db: any CatalogConnection) throws -> [(id: Int64, name: String)] {
        try db.rows("SELECT id, name FROM keyword ORDER BY name").map { (try $0.required(0), try $0.required(1)) }
    }

    /// The keywords of each of these assets, by name.
    static func names(of assets: IDList, _ db: any CatalogConnection) throws -> [Int64: [String]] {
        let rows = try assets.fetchRows(db) {
            "SELECT x.asset_id, k.name FROM asset_keyword x JOIN keyword k ON k.id = x.keyword_id WHERE x.asset_id IN \($0) ORDER BY k.name"
        }
        return Dictionary(grouping: rows, by: { $0[0] as Int64? ?? 0 }).mapValues { $0.compactMap { $0[1] as String? } }
    }
}
