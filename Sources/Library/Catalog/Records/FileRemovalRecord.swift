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
    static func queue(_ paths: some Sequence<String>, _ db: Database) throws {
        let now = utcNow()
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO file_removal (path, queued_at) VALUES (?, ?)")
        for path in paths { try statement.execute(arguments: [path, now]) }
    }

    /// Every path waiting to be removed, in path order.
    static func pending(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT path FROM file_removal ORDER BY path")
    }

    /// `paths` are gone from the folder.
    static func done(_ paths: some Sequence<String>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM file_removal WHERE path = ?")
        for path in paths { try statement.execute(arguments: [path]) }
    }

    /// Which of `paths` some catalog row still names: a file, an auxiliary image's PNG,
    /// or, for files named by a sha256 (previews, proxies, thumbnails made on demand), a
    /// file with those bytes.
    static func named(_ paths: [String], shas: [String: String], _ db: Database) throws -> Set<String> {
        try Set(paths.filter { path in try CatalogFile.isNamed(path, db) || (try shas[path].map { try CatalogFile.hasBytes($0, db) } ?? false) })
    }

    /// Whether `path` is listed for removal.
    static func isQueued(_ path: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM file_removal WHERE path = ?)"), arguments: [path]) ?? false
    }
}
