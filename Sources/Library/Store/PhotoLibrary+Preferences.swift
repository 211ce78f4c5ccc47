import Foundation
import GRDB

extension PhotoLibrary {
    /// A remembered choice (table `preference`), or nil.
    public func preference(_ key: String) throws -> String? {
        try catalog.sqliteRead { db in try PreferenceRecord.fetchOne(db, key: key)?.value }
    }

    public func setPreference(_ key: String, _ value: String) throws {
        try catalog.sqliteWrite { db in try PreferenceRecord(key: key, value: value, updatedAt: utcNow()).upsert(db) }
    }
}
