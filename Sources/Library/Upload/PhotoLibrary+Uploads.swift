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

    /// Which of `sizes` some original of the library has. A file of any other size is not
    /// in the library, so the gallery's page hashes only the files of these sizes to ask
    /// ``asset(holdingOriginal:)`` (hashing every file cost the page more than sending it).
    public func originalSizes(among sizes: [Int64]) throws -> Set<Int64> {
        let distinct = Array(Set(sizes))
        return try catalog.read { db in
            var known = Set<Int64>()
            for start in stride(from: 0, to: distinct.count, by: 512) {
                known.formUnion(try ResourceRecord.originalSizes(among: Array(distinct[start..<min(distinct.count, start + 512)]), db))
            }
            return known
        }
    }
}
