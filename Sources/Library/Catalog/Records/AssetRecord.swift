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

extension AssetRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "asset"

    enum Columns {
        static let kind = Column(CodingKeys.kind)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func exists(_ id: Int64, _ db: Database) throws -> Bool {
        try AssetRecord.exists(db, key: id)
    }

    /// A still joined its movie (or a movie its still), or a still turned out to hold one.
    static func setKind(_ kind: AssetKind, of id: Int64, _ db: Database) throws {
        try AssetRecord.filter(key: id).updateAll(db, Columns.kind.set(to: kind))
    }
}
