import GRDB

/// What marking an asset did.
public struct FavoriteChange: Codable, Sendable, Equatable {
    public var asset: Int64
    /// Whether it is a favourite now.
    public var favorite: Bool
    /// Whether that changed.
    public var changed: Bool
}

extension PhotoLibrary {
    /// Marks the assets as favourites (`on`), or unmarks them, in one transaction.
    public func setFavorite(_ ids: [Int64], _ on: Bool) throws -> [FavoriteChange] {
        try catalog.write { db in
            let now = utcNow()
            let mark = try db.cachedStatement(sql: "INSERT OR IGNORE INTO favorite (asset_id, added_at) VALUES (?, ?)")
            return try ids.map { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                let changed: Bool
                if on {
                    try mark.execute(arguments: [id, now])
                    changed = db.changesCount > 0
                } else {
                    changed = try FavoriteRecord.deleteOne(db, key: id)
                }
                return FavoriteChange(asset: id, favorite: on, changed: changed)
            }
        }
    }
}
