import GRDB

/// A row of `trashed_asset` (0013): an asset in the trash, and since when.
struct TrashedAssetRecord: Codable, Sendable {
    var assetId: Int64
    /// UTC, as ``utcNow()`` writes it.
    var trashedAt: String

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id", trashedAt = "trashed_at"
    }
}

extension TrashedAssetRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "trashed_asset"

    /// When each of these assets that is in the trash went there.
    static func trashedAt(assets: IDList, _ db: any CatalogConnection) throws -> [Int64: String] {
        let rows = try assets.fetchAll(Self.self, db) { "SELECT asset_id, trashed_at FROM trashed_asset WHERE asset_id IN \($0)" }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.assetId, $0.trashedAt) })
    }

    /// When the asset went into the trash; nil when it is not there.
    static func trashedAt(_ asset: Int64, _ db: any CatalogConnection) throws -> String? {
        try db.fetchOne(String.self, "SELECT trashed_at FROM trashed_asset WHERE asset_id = \(asset)")
    }

    /// The trash, oldest first; with `before`, only what went there before that time.
    static func fetchAll(before: String?, _ db: any CatalogConnection) throws -> [TrashedAssetRecord] {
        let before: CatalogSQL = before.map { "WHERE trashed_at < \($0)" } ?? ""
        return try db.fetchAll(Self.self, "SELECT asset_id, trashed_at FROM trashed_asset \(before) ORDER BY trashed_at, asset_id")
    }

    /// Puts the asset in the trash, since `time`.
    static func add(_ asset: Int64, at time: String, _ db: any CatalogConnection) throws {
        try db.insert(TrashedAssetRecord(assetId: asset, trashedAt: time))
    }

    /// Takes the asset out of the trash; false when it was not there.
    static func remove(_ asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("DELETE FROM trashed_asset WHERE asset_id = \(asset)") > 0
    }
}
