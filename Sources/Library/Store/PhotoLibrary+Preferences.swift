import Foundation

extension PhotoLibrary {
    /// A remembered choice (table `preference`), or nil.
    public func preference(_ key: String) throws -> String? {
        try catalog.read { db in try PreferenceRecord.value(of: key, db) }
    }

    public func setPreference(_ key: String, _ value: String) throws {
        try catalog.write { db in try PreferenceRecord.set(key, to: value, db) }
    }
}
