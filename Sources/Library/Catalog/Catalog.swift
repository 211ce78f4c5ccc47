import Foundation
import GRDB
import Synchronization

/// The library's catalog, on either backend:
/// - SQLite, the default, in the library folder: WAL, a busy timeout, foreign keys, and
///   the schema from `migrations/` applied in order, each once, in its own transaction
///   (GRDB's `DatabaseMigrator`, which records them in its `grdb_migrations` table);
/// - PostgreSQL, for a library several machines share (``PostgresCatalog``).
///
/// Reads and writes go through `read(_:)` and `write(_:)`, with a `CatalogConnection`;
/// the SQL itself lives with the records of `Catalog/Records/` and in `AssetListing`.
/// What only a SQLite catalog has (an online backup, a copy's source) goes through
/// `sqliteRead(_:)` and `sqliteWrite(_:)`, which a catalog on PostgreSQL refuses with
/// ``LibraryError/sqliteOnly(url:)``.
public final class Catalog: Sendable {
    /// How the catalog was opened.
    public enum Access: Sendable, Equatable {
        /// Reads and writes. `concurrent`: through a pool of connections, so readers never
        /// wait for the writer (imports, edits, the gallery); otherwise through one
        /// connection, cheaper to open, for a command that mostly reads.
        case readWrite(concurrent: Bool)
        /// Reads only, through one read-only connection: the library is on storage this
        /// process cannot write (a read-only mount, a backup disk, another user's files).
        case readOnly
    }

    enum Store: Sendable {
        case sqlite(any DatabaseWriter)
        case postgres(PostgresCatalog)
    }

    let store: Store
    private let closed = Mutex(false)
    /// The SQLite file, or the PostgreSQL URL without its password.
    public let path: String
    public let access: Access
    /// What a user should know about this catalog, such as changes a read-only catalog
    /// cannot show.
    public let notes: [String]

    /// How long a writer waits for another process's write transaction.
    public static let busyTimeout: TimeInterval = 30

    /// Opens the catalog at `path`: read-write, creating and migrating it as needed, or
    /// read-only (then it must exist and be fully migrated already). `willMigrate` hears
    /// the migrations about to be applied to an existing catalog, before they run.
    public convenience init(path: String, access: Access, willMigrate: ([String]) -> Void = { _ in }) throws {
        do {
            try self.init(opening: path, access: access, willMigrate: willMigrate)
        } catch let error as DatabaseError where [ResultCode.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw LibraryError.damagedCatalog(path: path, detail: error.message ?? "\(error)")
        }
    }

    /// Opens the catalog on a PostgreSQL server, migrating it as needed; `willMigrate` as
    /// for SQLite.
    public init(postgres location: PostgresLocation, willMigrate: ([String]) -> Void = { _ in }) throws {
        store = .postgres(try PostgresCatalog(location: location, willMigrate: willMigrate))
        path = location.description
        access = .readWrite(concurrent: true)
        notes = []
    }

    /// Where the catalog is, when it is on PostgreSQL.
    public var postgresLocation: PostgresLocation? {
        if case .postgres(let postgres) = store { postgres.location } else { nil }
    }

    /// Whether the catalog is on PostgreSQL.
    public var isPostgres: Bool {
        if case .postgres = store { true } else { false }
    }

    private init(opening path: String, access: Access, willMigrate: ([String]) -> Void) throws {
        self.path = path
        self.access = access
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        config.foreignKeysEnabled = true
        if let trace = ProcessInfo.processInfo.environment["CAMLIB_SQL_TRACE"], !trace.isEmpty {
            Self.trace(to: trace, &config)
        }
        var notes: [String] = []
        // Creating and migrating a catalog is done by one process at a time: the others
        // wait on the lock, then find the work done (ten imports started at once on a new
        // library each ran the same migrations).
        let file = URL(fileURLWithPath: path)
        let lockPath = file.deletingLastPathComponent().appendingPathComponent("." + file.lastPathComponent + ".lock").path
        var migrating: FileLock?
        let database: any DatabaseWriter
        switch access {
        case .readWrite(let concurrent):
            if !FileManager.default.fileExists(atPath: path) { migrating = try FileLock(lockPath) }
            config.prepareDatabase { db in
                // FULL: a committed import survives power loss, not only a crash.
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            if concurrent || !FileManager.default.fileExists(atPath: path) {
                database = try DatabasePool(path: path, configuration: config)  // DatabasePool enables WAL
            } else {
                // The catalog is in WAL mode already (a pool made it); one connection reads
                // it beside other processes' writers just as well.
                database = try DatabaseQueue(path: path, configuration: config)
            }
        case .readOnly:
            config.readonly = true
            let wal = path + "-wal"
            let pendingChanges = ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int ?? 0) > 0
            if pendingChanges, let queue = try? DatabaseQueue(path: path, configuration: config), (try? queue.read { try $0.tableExists("asset") }) == true {
                // SQLite reads the write-ahead log when its index (-shm) is there too.
                database = queue
            } else {
                // Without -wal and -shm (a cleanly closed catalog) SQLite can read a WAL
                // catalog on read-only storage only when told nothing will change it.
                if pendingChanges {
                    notes.append(
                        "\(wal) holds changes that were never written into the catalog; read-only, camlib cannot apply them and shows the catalog without them"
                    )
                }
                database = try DatabaseQueue(path: Self.immutableURI(path), configuration: config)
            }
        }
        self.notes = notes
        store = .sqlite(database)
        let migrator = Self.migrator
        // One read of the applied migrations: those this camlib does not know mean a newer
        // camlib wrote the catalog (what DatabaseMigrator.hasBeenSuperseded tells, reading again).
        func migrations() throws -> (unknown: [String], pending: [String]) {
            try database.read { db in
                let applied = try migrator.appliedIdentifiers(db)
                let known = Self.knownMigrations
                return (applied.subtracting(known).sorted(), known.filter { !applied.contains($0) })
            }
        }
        var (unknown, pending) = try migrations()
        if !unknown.isEmpty { throw LibraryError.newerCatalog(path: path, unknownMigrations: unknown) }
        guard !pending.isEmpty else { return }
        guard access != .readOnly else { throw LibraryError.readOnlyNeedsMigration(path: path, migrations: pending) }
        if migrating == nil {
            migrating = try FileLock(lockPath)
            pending = try migrations().pending  // as another process may have left them
            guard !pending.isEmpty else { return }
        }
        defer { withExtendedLifetime(migrating) {} }
        if pending.count < Self.knownMigrations.count { willMigrate(pending) }
        try migrator.migrate(database)
    }

    /// Runs `body` in a read transaction: it sees one state of the catalog throughout.
    func read<T>(_ body: (any CatalogConnection) throws -> T) throws -> T {
        switch store {
        case .sqlite(let database): try database.read { try body($0) }
        case .postgres(let postgres): try postgres.read { try body($0) }
        }
    }

    /// Runs `body` in a write transaction: all of it is committed, or none.
    @discardableResult
    func write<T>(_ body: (any CatalogConnection) throws -> T) throws -> T {
        switch store {
        case .sqlite(let database):
            guard access != .readOnly else { throw LibraryError.readOnly(path: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
            return try database.write { try body($0) }
        case .postgres(let postgres): return try postgres.write { try body($0) }
        }
    }

    /// Runs `body`, whose statements each stand whole by themselves (a claim, a progress
    /// report), as writes of their own: on PostgreSQL each commits by itself, one round
    /// trip instead of BEGIN, it and COMMIT; on SQLite, ``write(_:)``.
    @discardableResult
    func writeStatements<T>(_ body: (any CatalogConnection) throws -> T) throws -> T {
        switch store {
        case .sqlite: return try write(body)
        case .postgres(let postgres): return try postgres.withSession { try body($0) }
        }
    }

    /// The SQLite catalog's connections, for what is not yet written for both backends.
    private func sqlite() throws -> any DatabaseWriter {
        switch store {
        case .sqlite(let database): database
        case .postgres: throw LibraryError.sqliteOnly(url: path)
        }
    }

    /// ``read(_:)`` with GRDB's own connection: SQLite only.
    func sqliteRead<T>(_ body: (Database) throws -> T) throws -> T {
        try sqlite().read(body)
    }

    /// ``write(_:)`` with GRDB's own connection: SQLite only.
    func sqliteWrite<T>(_ body: (Database) throws -> T) throws -> T {
        let database = try sqlite()
        guard access != .readOnly else { throw LibraryError.readOnly(path: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        return try database.write(body)
    }

    /// Copies the catalog, as it is now, to a new SQLite database at `path`: SQLite's
    /// online backup, or a copy of a PostgreSQL catalog's rows read in one transaction
    /// (readers and writers of this one go on meanwhile, either way).
    func backup(to path: String) throws {
        switch store {
        case .sqlite(let database):
            let copy = try DatabaseQueue(path: path)
            try database.backup(to: copy)
            try copy.close()
        case .postgres(let postgres):
            let copy = try Catalog(path: path, access: .readWrite(concurrent: false))
            defer { try? copy.close() }
            _ = try copy.sqliteWrite { db in try CatalogCopy.back(from: postgres, into: db) }
        }
    }

    /// Closes the catalog's connections, first copying the write-ahead log into
    /// `catalog.sqlite` and emptying it, so the catalog is that one file again (a copy of
    /// `catalog.sqlite` alone, as backups often make, then holds everything). Nothing may
    /// read or write the catalog afterwards.
    public func close() throws {
        // Once: a library closed early (a catalog moved) is closed again as the process ends.
        guard closed.withLock({ closed in defer { closed = true }; return !closed }) else { return }
        guard case .sqlite(let database) = store else {
            if case .postgres(let postgres) = store { postgres.close() }
            return
        }
        if access != .readOnly {
            // A pool closes its writer before its read-only readers, and a read-only
            // connection closing last cannot checkpoint: so checkpoint here. Busy (another
            // process reads): the log stays, still consistent, for a later close.
            try? database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
        try database.close()
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
        switch store {
        case .sqlite(let database): try database.read { db in try Self.migrator.appliedMigrations(db) }
        case .postgres(let postgres): try postgres.appliedMigrations()
        }
    }

    public static var knownMigrations: [String] { EmbeddedMigrations.all.map(\.name) }

    /// `CAMLIB_SQL_TRACE=FILE`: every statement camlib runs, with its values in place,
    /// appended to FILE, one per line; what `bench/query.py` replays in the `sqlite3`
    /// shell as the floor camlib's catalog work is measured against.
    /// On PostgreSQL, ``PostgresSession`` writes the same trace, for `psql` to replay.
    private static func trace(to path: String, _ config: inout Configuration) {
        guard let sink = TraceSink.shared else { return }
        config.prepareDatabase { db in
            db.trace(options: .statement) { event in
                guard case .statement(let statement) = event else { return }
                sink.write(statement.expandedSQL)
            }
        }
    }

    /// `file:PATH?immutable=1`, the path percent-encoded as RFC 3986 asks.
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }
}

/// The trace file of `CAMLIB_SQL_TRACE`: written from whichever connection runs a statement.
/// `@unchecked Sendable`: a C stream, whose every write takes the stream's own lock.
final class TraceSink: @unchecked Sendable {
    // A C stream; each write takes its own lock (flockfile), which POSIX stdio does for
    // every call, so lines from two connections do not interleave.
    let file: UnsafeMutablePointer<FILE>

    init(file: UnsafeMutablePointer<FILE>) { self.file = file }

    /// The file `CAMLIB_SQL_TRACE` names, opened once; nil when it names none.
    static let shared: TraceSink? = {
        guard let path = ProcessInfo.processInfo.environment["CAMLIB_SQL_TRACE"], !path.isEmpty, let file = fopen(path, "a") else { return nil }
        return TraceSink(file: file)
    }()

    func write(_ sql: String) {
        fputs(sql.replacingOccurrences(of: "\n", with: " ") + ";\n", file)
        fflush(file)
    }
}
