import Foundation
import PostgresNIO

/// A library's catalog on a PostgreSQL server (15 or newer), for a library that several
/// machines share: the schema of `migrations/postgres/`, applied in order, each in its own
/// transaction, by one process at a time (an advisory lock), and recorded in
/// `camlib_migrations` under the names of the SQLite migrations they stand for, so both
/// backends list the same migrations.
///
/// ``Catalog`` holds one for a library whose catalog is here; the catalog layer's
/// requests run on its session as on a SQLite connection (docs/architecture.md, "A
/// catalog on PostgreSQL").
public final class PostgresCatalog: @unchecked Sendable {
    // @unchecked: `session` and `closed` are used under `lock` only.
    public let location: PostgresLocation
    private var session: PostgresSession
    private var closed = false
    private let lock = NSLock()

    /// Connects and applies the migrations the catalog lacks. `willMigrate` hears them
    /// first, for a catalog that has some already.
    public init(location: PostgresLocation, willMigrate: ([String]) -> Void = { _ in }) throws {
        self.location = location
        session = try PostgresSession(location)
        try migrate(willMigrate: willMigrate)
    }

    /// Runs `body` with the connection, alone, outside a transaction: a single statement
    /// PostgreSQL commits by itself, one round trip instead of BEGIN, it and COMMIT.
    ///
    /// A connection that was lost (the server restarted, or ended a session left idle
    /// in a transaction) is made again first: the statement that met the loss failed,
    /// and so did its transaction, but a worker or `serve` goes on with the next.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if session.isLost, !closed {
            let fresh = try PostgresSession(location)
            try Self.settle(fresh)
            session = fresh
        }
        return try body(session)
    }

    /// Runs `body` in a read-only transaction that sees one state of the catalog
    /// throughout, as a SQLite read does. What it read stands even if the COMMIT fails
    /// (the session ended while the caller wrote its output, say): a read-only
    /// transaction commits nothing.
    func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withSession { session in
            try session.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", commitMayFail: true) { try body(session) }
        }
    }

    /// Runs `body` in a transaction: all of it is committed, or none.
    func write<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withSession { session in try session.transaction { try body(session) } }
    }

    public func close() {
        lock.withLock {
            closed = true
            session.close()
        }
    }

    // MARK: Migrations

    /// One migration of `migrations/postgres/` and the migration names it records: the
    /// baseline, every SQLite migration up to its number; a later one, its own name.
    struct Migration {
        var name: String
        var sql: String
        var records: [String]
    }

    static var migrations: [Migration] {
        let sqlite = Catalog.knownMigrations
        return EmbeddedPostgresMigrations.all.enumerated().map { index, migration in
            guard index == 0 else { return Migration(name: migration.name, sql: migration.sql, records: [migration.name]) }
            let number = Int(migration.name.prefix(4)) ?? 0
            return Migration(name: migration.name, sql: migration.sql, records: sqlite.filter { (Int($0.prefix(4)) ?? 0) <= number })
        }
    }

    /// The names the migrations record, in order: SQLite's list when the two folders agree.
    public static var knownMigrations: [String] { migrations.flatMap(\.records) }

    /// Names of the migrations applied to this catalog, in order.
    public func appliedMigrations() throws -> [String] {
        try withSession { session in try Self.applied(session).sorted() }
    }

    private static func applied(_ session: PostgresSession) throws -> Set<String> {
        try opening(session).applied
    }

    /// How long a session of camlib's may stay idle inside a transaction before the
    /// server ends it, releasing its locks, unless the database or role sets a time of
    /// its own. camlib never waits that long between two statements of a transaction;
    /// a process that does is stopped (a laptop asleep, a debugger), and without this
    /// it would hold up every other machine's writers until it went on. The worker's
    /// lease is as long: its jobs go to another machine then too.
    static let idleInTransactionTimeout = "60s"

    /// The migrations applied, and whether the session runs without parallel workers and
    /// JIT compilation and plans cursors as other statements (``makeSerial(_:)``), in one
    /// statement: the first of every command. The same statement limits how long the
    /// session may stay idle in a transaction (``idleInTransactionTimeout``), unless the
    /// database or its role sets a limit already.
    private static func opening(_ session: PostgresSession) throws -> (applied: Set<String>, serial: Bool) {
        let sql = """
            SELECT identifier, current_setting('max_parallel_workers_per_gather') = '0' AND current_setting('jit') = 'off' AND current_setting('cursor_tuple_fraction')::float8 = 1 FROM camlib_migrations, (SELECT \(limitingIdleTransactions)) AS limited
            """
        guard let rows = try session.queryIfTablesExist(sql) else { return ([], false) }
        let decoded = try rows.map { try $0.decode((String, Bool).self) }
        return (Set(decoded.map(\.0)), decoded.first?.1 ?? false)
    }

    /// An expression that sets ``idleInTransactionTimeout`` for the session where no limit is set.
    private static let limitingIdleTransactions = """
        CASE current_setting('idle_in_transaction_session_timeout') WHEN '0' \
        THEN set_config('idle_in_transaction_session_timeout', '\(idleInTransactionTimeout)', false) END
        """

    /// Gives a new session camlib's settings, as a command's first statement does.
    private static func settle(_ session: PostgresSession) throws {
        if try !opening(session).serial { try makeSerial(session) }
    }

    /// Without parallel workers: the catalog's statements are short index walks, for
    /// which starting two worker processes costs ten times the work (20 ms for a 2 ms
    /// page). Nor JIT compilation: a statement whose estimate passes `jit_above_cost` (a
    /// count of the assets of a lens) first loads LLVM into the session, 20 to 30 ms for
    /// a statement of 2. And a cursor's statement planned as any other
    /// (`cursor_tuple_fraction` 1, where PostgreSQL's default plans for the first tenth of
    /// its rows): the cursors of long listings read every row. The settings are made the
    /// database's own, so that they cost no statement after the first command and hold
    /// for `psql` and through a connection pooler (which refuses them as startup
    /// parameters). Only the database's owner (or a superuser) may do that, and not on a
    /// standby: a session of any other database sets them for itself, in the same
    /// statement, and goes on whatever ALTER answers. The statement also limits the
    /// session's idle transactions, as ``opening(_:)`` does (which could not when the
    /// catalog had no tables yet).
    private static func makeSerial(_ session: PostgresSession) throws {
        try session.query("""
            DO $$ BEGIN
              PERFORM set_config('max_parallel_workers_per_gather', '0', false);
              PERFORM set_config('jit', 'off', false);
              PERFORM set_config('cursor_tuple_fraction', '1', false);
              PERFORM \(limitingIdleTransactions);
              BEGIN
                EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0', current_database());
                EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
                EXECUTE format('ALTER DATABASE %I SET cursor_tuple_fraction = 1', current_database());
              EXCEPTION WHEN OTHERS THEN NULL;
              END;
            END $$
            """)
    }

    /// A key of PostgreSQL's advisory locks, held while one process migrates.
    private static let migrationLock: Int64 = 0x6361_6d6c_6962_0001  // "camlib" 1

    private func migrate(willMigrate: ([String]) -> Void) throws {
        try withSession { session in
            func pending(_ applied: Set<String>) throws -> [Migration] {
                let unknown = applied.subtracting(Self.knownMigrations)
                if !unknown.isEmpty { throw PostgresCatalogError.newerSchema(url: location.description, unknownMigrations: unknown.sorted()) }
                return Self.migrations.filter { !Set($0.records).isSubset(of: applied) }
            }
            let (before, serial) = try Self.opening(session)
            if !serial { try Self.makeSerial(session) }
            guard !(try pending(before)).isEmpty else { return }
            try session.query("SELECT pg_advisory_lock($1)", [Self.migrationLock])
            defer { _ = try? session.query("SELECT pg_advisory_unlock($1)", [Self.migrationLock]) }
            // Another process may have migrated while this one waited for the lock.
            let applied = try Self.applied(session)
            let todo = try pending(applied)
            if !applied.isEmpty, !todo.isEmpty { willMigrate(todo.flatMap(\.records).filter { !applied.contains($0) }) }
            for migration in todo {
                try session.transaction {
                    try session.query(
                        #"CREATE TABLE IF NOT EXISTS camlib_migrations (identifier text COLLATE "C" PRIMARY KEY, applied_at text COLLATE "C" NOT NULL)"#)
                    try session.run(script: migration.sql)
                    for name in migration.records where !applied.contains(name) {
                        try session.query("INSERT INTO camlib_migrations (identifier, applied_at) VALUES ($1, catalog_now())", [name])
                    }
                }
            }
        }
    }
}
