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
