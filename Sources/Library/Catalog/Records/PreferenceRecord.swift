import GRDB

/// A row of `preference`: a choice the library remembers for its user.
struct PreferenceRecord: Codable, Sendable {
    var key: String
    var value: String
    var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case key, value, updatedAt = "updated_at"
    }
}

extension PreferenceRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "preference"
}

extension PreferenceRecord {
    /// The value remembered under `key`, or nil.
    static func value(of key: String, _ db: any CatalogConnection) throws -> String? {
        try db.fetchOne(String.self, "SELECT value FROM preference WHERE key = \(key)")
    }

    /// Remembers `value` under `key`, in place of what was.
    static func set(_ key: String, to value: String, _ db: any CatalogConnection) throws {
        try db.insert(
            PreferenceRecord(key: key, value: value, updatedAt: utcNow()),
            onConflict: "(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
    }
}
