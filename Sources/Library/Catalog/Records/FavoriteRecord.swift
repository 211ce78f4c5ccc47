import GRDB

/// A row of `favorite` (0014): an asset marked as a favourite.
struct FavoriteRecord: Codable, Sendable {
    var assetId: Int64
    var addedAt: String

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id", addedAt = "added_at"
    }
}

extension FavoriteRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "favorite"

    /// Marks `asset` a favourite since `time`; false when it was one already.
    static func mark(_ asset: Int64, at time: String, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("INSERT INTO favorite (asset_id, added_at) VALUES (\(asset), \(time)) ON CONFLICT DO NOTHING") > 0
    }

    /// Takes `asset` out of the favourites; false when it was not one.
    static func unmark(_ asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("DELETE FROM favorite WHERE asset_id = \(asset)") > 0
    }

    /// Which of these assets are favourites.
    static func favorites(among assets: IDList, _ db: any CatalogConnection) throws -> Set<Int64> {
        try assets.fetchSet(Int64.self, db) { "SELECT asset_id FROM favorite WHERE asset_id IN \($0)" }
    }
}
