import Foundation
import GRDB

/// The library's SQLite catalog: WAL, a busy timeout, foreign keys, and the schema from
/// `migrations/` applied in order, each once, in its own transaction, recorded in
/// GRDB's `grdb_migrations` table.
public final class Catalog: Sendable {
    public let pool: DatabasePool
    public let path: String

    /// How long a writer waits for another process's write transaction.
    public static let busyTimeout: TimeInterval = 30

    /// Opens (creating if needed) and migrates the catalog at `path`.
    public init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            // FULL: a committed import survives power loss, not only a crash.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: config)  // DatabasePool enables WAL
        try pool.write { db in
            let known = Set(EmbeddedMigrations.all.map(\.name))
            if try db.tableExists("grdb_migrations") {
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                let unknown = applied.filter { !known.contains($0) }.sorted()
                if !unknown.isEmpty { throw LibraryError.newerCatalog(path: path, unknownMigrations: unknown) }
            }
        }
        try Self.migrator.migrate(pool)
    }

    /// Every migration of `migrations/`, compiled in by the EmbedMigrations plugin.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// Names of the migrations applied to this catalog, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Self.migrator.appliedMigrations(db) }
    }

    public static var knownMigrations: [String] { EmbeddedMigrations.all.map(\.name) }
}
