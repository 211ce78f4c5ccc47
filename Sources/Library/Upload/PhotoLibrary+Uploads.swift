import Foundation

extension PhotoLibrary {
    /// The asset whose original has these bytes (its sha256, in hex), if the library
    /// holds them: an upload that says its hash is answered "already in the library"
    /// before any of it is sent.
    public func asset(holdingOriginal sha256: String) throws -> Int64? {
        let hex = sha256.lowercased()
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return try catalog.read { db in try ResourceRecord.assetHolding(original: hex, db) }
    }
}
