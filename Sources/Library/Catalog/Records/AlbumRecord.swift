import GRDB

/// A row of `album` (0014).
struct AlbumRecord: Codable, Sendable {
    var id: Int64?
    var name: String
    /// The asset shown for the album; nil: its first.
    var coverAssetId: Int64?
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, name, coverAssetId = "cover_asset_id", createdAt = "created_at"
    }
}

extension AlbumRecord: FetchableRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "album"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func named(_ name: String, _ db: any CatalogConnection) throws -> AlbumRecord? {
        try db.fetchAll(AlbumRecord.self, "SELECT * FROM album WHERE name = \(name)").first
    }

    /// Every album with its size and cover, by name (`album_overview`).
    static func overview(_ db: any CatalogConnection) throws -> [CatalogRow] {
        try db.rows("SELECT id, name, assets, cover_asset_id, created_at FROM album_overview ORDER BY name, id")
    }

    /// The album with this id.
    static func find(_ id: Int64, _ db: any CatalogConnection) throws -> AlbumRecord? {
        try db.fetchAll(AlbumRecord.self, "SELECT * FROM album WHERE id = \(id)").first
    }

    /// Writes the album's name and cover.
    func update(_ db: any CatalogConnection) throws {
        try db.execute("UPDATE album SET name = \(name), cover_asset_id = \(coverAssetId) WHERE id = \(id)")
    }

    /// Deletes the album, and the places of its assets in it.
    static func delete(_ id: Int64, _ db: any CatalogConnection) throws {
        try db.execute("DELETE FROM album_asset WHERE album_id = \(id)")
        try db.execute("DELETE FROM album WHERE id = \(id)")
    }

    /// Every album's id and name: a few hundred rows at most.
    static func allNames(_ db: any CatalogConnection) throws -> [(id: Int64, name: String)] {
        try db.rows("SELECT id, name FROM album ORDER BY name").map { (try $0.required(0), try $0.required(1)) }
    }

    /// The names of the albums each of these assets is in, each list by album name.
    static func names(of assets: IDList, _ db: any CatalogConnection) throws -> [Int64: [String]] {
        let rows = try assets.fetchRows(db) {
            "SELECT x.asset_id, a.name FROM album_asset x JOIN album a ON a.id = x.album_id WHERE x.asset_id IN \($0) ORDER BY a.name"
        }
        return Dictionary(grouping: rows, by: { $0[0] as Int64? ?? 0 }).mapValues { $0.compactMap { $0[1] as String? } }
    }
}

/// A row of `album_asset` (0014): an asset's place in an album.
struct AlbumAssetRecord: Codable, Sendable {
    var albumId: Int64
    var assetId: Int64
    var position: Int64
    var addedAt: String

    enum CodingKeys: String, CodingKey {
        case albumId = "album_id", assetId = "asset_id", position, addedAt = "added_at"
    }
}

extension AlbumAssetRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "album_asset"

    /// The album's assets in its order.
    static func assets(of album: Int64, _ db: any CatalogConnection) throws -> [Int64] {
        try db.fetchAll(Int64.self, "SELECT asset_id FROM album_asset WHERE album_id = \(album) ORDER BY position")
    }

    /// Whether the asset is in the album.
    static func contains(album: Int64, asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(Int64.self, "SELECT asset_id FROM album_asset WHERE album_id = \(album) AND asset_id = \(asset)") != nil
    }

    /// Takes the asset out of the album; false when it was not in it.
    static func remove(album: Int64, asset: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("DELETE FROM album_asset WHERE album_id = \(album) AND asset_id = \(asset)") > 0
    }

    /// Up to `limit` of the album's assets outside the trash, in its order, after the
    /// place `position` (keyset paging on `album_asset_order`): each with its place.
    static func page(of album: Int64, after position: Int64, limit: Int, _ db: any CatalogConnection) throws -> [(asset: Int64, position: Int64)] {
        try db.rows(
            """
            SELECT x.asset_id, x.position FROM album_asset x
            WHERE x.album_id = \(album) AND x.position > \(position)
              AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)
            ORDER BY x.position LIMIT \(limit)
            """
        ).map { (try $0.required(0), try $0.required(1)) }
    }

    /// The position after the album's last.
    static func nextPosition(in album: Int64, _ db: any CatalogConnection) throws -> Int64 {
        try db.fetchOne(Int64.self, "SELECT coalesce(max(position), 0) + 1 FROM album_asset WHERE album_id = \(album)") ?? 1
    }
}
