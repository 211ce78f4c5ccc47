import Foundation
import GRDB

extension PhotoLibrary {
    /// Where `camlib capture` writes files before importing them; what an interrupted
    /// capture left here is imported by the next one.
    public var captureStaging: URL { root.appendingPathComponent("incoming") }

    /// A remembered choice (table `preference`), or nil.
    public func preference(_ key: String) throws -> String? {
        try catalog.pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM preference WHERE key = ?", arguments: [key]) }
    }

    public func setPreference(_ key: String, _ value: String) throws {
        let now = ISO8601DateFormatter().string(from: Date())
        try catalog.pool.write { db in
            try db.execute(
                sql: "INSERT INTO preference (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                arguments: [key, value, now])
        }
    }
}
