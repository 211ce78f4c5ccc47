import GRDB

/// A row of `keyword` (0014).
struct KeywordRecord: Codable, Sendable {
    var id: Int64?
    var name: String
}

extension KeywordRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "keyword"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func named(_ name: String, _ db: Database) throws -> KeywordRecord? {
        try KeywordRecord.filter(Column("name") == name).fetchOne(db)
    }

    /// Every keyword with how many assets carry it, by name (`keyword_overview`).
    static func overview(_ db: Database) throws -> [(name: String, assets: Int)] {
        try Row.fetchAll(db, sql: "SELECT name, assets FROM keyword_overview ORDER BY name").map { ($0[0], $0[1]) }
    }

    /// The keywords of each of these assets, by name.
    static func names(of assets: IDList, _ db: Database) throws -> [Int64: [String]] {
        let rows = try assets.fetchRows(db) {
            "SELECT x.asset_id, k.name FROM asset_keyword x JOIN keyword k ON k.id = x.keyword_id WHERE x.asset_id IN \($0) ORDER BY k.name"
        }
        return Dictionary(grouping: rows, by: { $0[0] as Int64 }).mapValues { $0.map { $0[1] as String } }
    }
}
