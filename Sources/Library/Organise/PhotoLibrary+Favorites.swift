
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
            return try ids.map { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                let changed = on ? try FavoriteRecord.mark(id, at: now, db) : try FavoriteRecord.unmark(id, db)
                return FavoriteChange(asset: id, favorite: on, changed: changed)
            }
        }
    }
}
