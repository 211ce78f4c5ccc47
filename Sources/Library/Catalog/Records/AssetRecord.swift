import GRDB

/// What an asset is, as a user sees it.
public enum AssetKind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case photo, live, video, motion
}

/// A row of `asset`: one item a user sees.
struct AssetRecord: Codable, Sendable {
    var id: Int64?
    var kind: AssetKind
    var importedAt: String

    enum CodingKeys: String, CodingKey {
        case id, kind, importedAt = "imported_at"
    }
}

extension AssetRecord: FetchableRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "asset"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// In SQL: GRDB's `exists(_:key:)` first reads the schema to find the primary key
    /// (the whole `sqlite_master` and `table_xinfo`), a millisecond of `camlib show`.
    static func exists(_ id: Int64, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM asset WHERE id = \(id))") ?? false
    }

    /// How many assets the catalog holds, the trash's included.
    static func count(_ db: any CatalogConnection) throws -> Int {
        try db.fetchOne(Int.self, "SELECT count(*) FROM asset") ?? 0
    }

    /// Deletes these assets' rows, and with them (`ON DELETE CASCADE`) every row of theirs.
    static func delete(_ ids: [Int64], _ db: any CatalogConnection) throws {
        for id in ids { try db.execute("DELETE FROM asset WHERE id = \(id)") }
    }

    /// A still joined its movie (or a movie its still), or a still turned out to hold one.
    static func setKind(_ kind: AssetKind, of id: Int64, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE asset SET kind = \(kind) WHERE id = \(id)")
    }
}
