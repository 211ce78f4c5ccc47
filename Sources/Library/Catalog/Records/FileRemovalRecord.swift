import GRDB

/// A row of `file_removal` (0013): a file of the library folder that no catalog row names
/// any more, to be deleted. Rows are written in the transaction that deletes what named
/// the file, and deleted once the file is gone.
struct FileRemovalRecord: Codable, Sendable {
    /// Relative to the library folder.
    var path: String
    var queuedAt: String

    enum CodingKeys: String, CodingKey {
        case path, queuedAt = "queued_at"
    }
}

extension FileRemovalRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "file_removal"

    /// Lists `paths` for removal (a path listed already stays listed once).
    static func queue(_ paths: some Sequence<String>, _ db: any CatalogConnection) throws {
        let now = utcNow()
        for path in paths { try db.insert(FileRemovalRecord(path: path, queuedAt: now), onConflict: "(path) DO NOTHING") }
    }

    /// Every path waiting to be removed, in path order.
    static func pending(_ db: any CatalogConnection) throws -> [String] {
        try db.fetchAll(String.self, "SELECT path FROM file_removal ORDER BY path")
    }

    /// `paths` are gone from the folder.
    static func done(_ paths: some Sequence<String>, _ db: any CatalogConnection) throws {
        for path in paths { try db.execute("DELETE FROM file_removal WHERE path = \(path)") }
    }

    /// Which of `paths` some catalog row still names: a file, an auxiliary image's PNG,
    /// or, for files named by a sha256 (previews, proxies, thumbnails made on demand), a
    /// file with those bytes.
    static func named(_ paths: [String], shas: [String: String], _ db: any CatalogConnection) throws -> Set<String> {
        try Set(paths.filter { path in try CatalogFile.isNamed(path, db) || (try shas[path].map { try CatalogFile.hasBytes($0, db) } ?? false) })
    }

    /// Whether `path` is listed for removal.
    static func isQueued(_ path: String, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM file_removal WHERE path = \(path))") ?? false
    }
}
