import Foundation
import GRDB

/// A row of `job` (0019), and the queue's named operations: enqueue, claim, renew,
/// complete, fail, hand back, rescue, cancel, retry. Every one is a statement or two in
/// the caller's write transaction; times come from the catalog's clock.
struct JobRecord: Codable, Sendable {
    var id: Int64?
    var kind: JobKind
    var assetId: Int64
    var resourceId: Int64?
    var arguments: String
    var dedupeKey: String?
    var batch: String?
    var state: JobState
    var priority: Int
    var runAfter: String
    var attempt: Int
    var maxAttempts: Int
    var host: String?
    var pid: Int32?
    var leaseToken: String?
    var leaseUntil: String?
    var progress: String?
    var lastError: String?
    var result: String?
    var createdAt: String
    var startedAt: String?
    var finishedAt: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, assetId = "asset_id", resourceId = "resource_id", arguments, dedupeKey = "dedupe_key", batch, state, priority
        case runAfter = "run_after", attempt, maxAttempts = "max_attempts", host, pid, leaseToken = "lease_token"
        case leaseUntil = "lease_until", progress, lastError = "last_error", result, createdAt = "created_at", startedAt = "started_at"
        case finishedAt = "finished_at"
    }

    var job: Job {
        Job(
            id: id!, kind: kind, asset: assetId, resource: resourceId, arguments: arguments, batch: batch, state: state, priority: priority,
            runAfter: runAfter, attempt: attempt, maxAttempts: maxAttempts, host: host, pid: pid, leaseUntil: leaseUntil, progress: progress,
            lastError: lastError, result: result, createdAt: createdAt, startedAt: startedAt, finishedAt: finishedAt)
    }
}

extension JobRecord: FetchableRecord, CatalogRecord {
    static let databaseTableName = "job"

    /// The channel of PostgreSQL's `LISTEN`/`NOTIFY` that a job waiting again signals
    /// (``PostgresJobListener``).
    static let channel = "camlib_jobs"

    /// Enqueues of at least this many jobs refresh PostgreSQL's statistics of the job table.
    static let analyzeAfter = 500

    /// The columns a job is read from, in the order ``init(row:)`` reads them.
    static let columns = """
        id, kind, asset_id, resource_id, arguments, dedupe_key, batch, state, priority, run_after, attempt, max_attempts, \
        host, pid, lease_token, lease_until, progress, last_error, result, created_at, started_at, finished_at
        """

    /// ``columns`` of the table aliased `alias`.
    static func columns(of alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
    }

    init(row: Row) throws {
        try self.init(row: CatalogRow(row))
    }

    init(row: CatalogRow) throws {
        id = row[0]
        kind = try row.required(1)
        assetId = try row.required(2)
        resourceId = row[3]
        arguments = try row.required(4)
        dedupeKey = row[5]
        batch = row[6]
        state = try row.required(7)
        priority = try row.required(8)
        runAfter = try row.required(9)
        attempt = try row.required(10)
        maxAttempts = try row.required(11)
        host = row[12]
        pid = row[13]
        leaseToken = row[14]
        leaseUntil = row[15]
        progress = row[16]
        lastError = row[17]
        result = row[18]
        createdAt = try row.required(19)
        startedAt = row[20]
        finishedAt = row[21]
    }

    /// Adds `jobs` (made together as `batch`, when given); returns their ids. A job whose
    /// dedupe key a waiting job has already takes that job's place: its arguments and the
    /// higher of the two priorities go to the waiting job, whose id is returned. On
    /// PostgreSQL, idle workers hear of them when the transaction commits.
    static func enqueue(_ jobs: [NewJob], batch: String?, _ db: any CatalogConnection) throws -> [Int64] {
        let now = db.dialect.now
        var ids: [Int64] = []
        for job in jobs {
            let id = try db.fetchOne(
                Int64.self,
                """
                INSERT INTO job (kind, asset_id, resource_id, arguments, dedupe_key, batch, priority, max_attempts, run_after, created_at)
                VALUES (\(job.kind), \(job.asset), \(job.resource), \(job.arguments), \(job.dedupeKey), \(batch), \(job.priority), \(job.maxAttempts), \(now), \(now))
                ON CONFLICT (dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL
                DO UPDATE SET arguments = excluded.arguments, priority = \(db.dialect.least("job.priority", "excluded.priority")),
                              batch = coalesce(excluded.batch, job.batch)
                RETURNING id
                """)
            guard let id else { throw LibraryError.damagedCatalog(path: "(the catalog)", detail: "a job was not queued") }
            ids.append(id)
        }
        if db.dialect == .postgres, !jobs.isEmpty {
            // The planner chooses claims' index by the job table's statistics: after a large
            // batch (a library's renders) they would still describe the queue before it.
            if jobs.count >= analyzeAfter { try db.execute("ANALYZE job") }
            try notify(kinds: jobs.map(\.kind), db)
        }
        return ids
    }

    /// Wakes idle workers of a PostgreSQL catalog when the transaction commits.
    private static func notify(kinds: [JobKind], _ db: any CatalogConnection) throws {
        guard db.dialect == .postgres else { return }
        try db.execute("SELECT pg_notify(\(channel), \(Set(kinds.map(\.rawValue)).sorted().joined(separator: ",")))")
    }

    /// Leases the first available job (of `kinds`, of `batch` when given) to `worker` for
    /// `leaseSeconds`, under a new `token`.
    ///
    /// On PostgreSQL, workers on several machines claim at once, each taking a job no
    /// other holds (`FOR UPDATE SKIP LOCKED`). Without a batch, the claim there first reads
    /// the first 64 waiting jobs of each kind from `job_claim` and locks the best of them:
    /// one short index walk per kind, where one walk in priority order passes every
    /// waiting job of other kinds (5.5 ms at p95 behind 10,000 of them). The candidates
    /// are a materialised CTE, sorted by their own keys, then looked up by id: as a plain
    /// subquery, the planner walked the priority index and tested each job against them
    /// (130 ms). When all of them are held (more than 64 workers of one kind), it walks
    /// the whole queue.
    static func claim(kinds: [JobKind], batch: String?, worker: WorkerIdentity, token: String, leaseSeconds: Int, _ db: any CatalogConnection) throws
        -> JobRecord?
    {
        let now = db.dialect.now
        let take: CatalogSQL = """
            UPDATE job SET state = 'running', attempt = attempt + 1, host = \(worker.host), pid = \(worker.pid), lease_token = \(token),
                           lease_until = \(db.dialect.later(Double(leaseSeconds))), started_at = \(now), progress = NULL
            """
        let returning = CatalogSQL(sql: " RETURNING \(columns)")
        if db.dialect == .postgres, batch == nil, !kinds.isEmpty {
            let wanted = kinds.map { "(\($0))" as CatalogSQL }.joined(separator: ", ")
            let sql: CatalogSQL = """
                \(take)
                WHERE id = (WITH candidates AS MATERIALIZED (
                                SELECT first.id, first.priority, first.run_after FROM (VALUES \(wanted)) AS wanted(kind)
                                CROSS JOIN LATERAL (SELECT id, priority, run_after FROM job
                                                    WHERE state = 'available' AND kind = wanted.kind AND run_after <= \(now)
                                                    ORDER BY priority, run_after, id LIMIT 64) AS first)
                            SELECT j.id FROM candidates c JOIN job j ON j.id = c.id
                            WHERE j.state = 'available' AND j.run_after <= \(now)
                            ORDER BY c.priority, c.run_after, c.id LIMIT 1
                            FOR UPDATE OF j SKIP LOCKED)
                """
            if let record = try db.fetchAll(JobRecord.self, sql + returning).first { return record }
        }
        let sql: CatalogSQL = """
            \(take)
            WHERE id = (SELECT id FROM job
                        WHERE state = 'available' AND run_after <= \(now) AND kind IN \(kinds)
                          AND (CAST(\(batch) AS TEXT) IS NULL OR batch = \(batch))
                        ORDER BY priority, run_after, id LIMIT 1\(db.dialect.forUpdateSkipLocked))
            """
        return try db.fetchAll(JobRecord.self, sql + returning).first
    }

    /// Extends the leases still held under `tokens` by `leaseSeconds`; returns those held.
    static func renew(_ tokens: [String], leaseSeconds: Int, _ db: any CatalogConnection) throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        return Set(
            try db.fetchAll(
                String.self,
                """
                UPDATE job SET lease_until = \(db.dialect.later(Double(leaseSeconds)))
                WHERE lease_token IN \(tokens) AND state = 'running' RETURNING lease_token
                """))
    }

    /// Throws ``LeaseLost`` (rolling back the caller's transaction) unless the job is still
    /// held under `token`: the fence of a job that writes more than once before it is
    /// done. On PostgreSQL the row stays this lease's until the transaction ends.
    static func checkLease(_ job: Int64, token: String, _ db: any CatalogConnection) throws {
        let held = try db.fetchOne(
            Int64.self, "SELECT id FROM job WHERE id = \(job) AND lease_token = \(token) AND state = 'running'\(db.dialect.forShare)")
        guard held != nil else { throw LeaseLost(job: job) }
    }

    /// What a done job answered (JSON).
    static func setResult(_ result: String, of job: Int64, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE job SET result = \(result) WHERE id = \(job) AND state = 'done'")
    }

    /// Records how far the job held under `token` is; false when the lease is lost.
    static func setProgress(_ progress: String, token: String, _ db: any CatalogConnection) throws -> Bool {
        try db.execute("UPDATE job SET progress = \(progress) WHERE lease_token = \(token) AND state = 'running'") == 1
    }

    /// The job held under `token` is done (an earlier attempt's error is kept): throws ``LeaseLost`` (and so rolls back the
    /// caller's transaction, with the rows the job wrote in it) when the lease is no
    /// longer that token's.
    static func complete(_ job: Int64, token: String, _ db: any CatalogConnection) throws {
        let done = try db.execute(
            """
            UPDATE job SET state = 'done', finished_at = \(db.dialect.now), lease_token = NULL, lease_until = NULL, progress = NULL
            WHERE id = \(job) AND lease_token = \(token) AND state = 'running'
            """)
        guard done == 1 else { throw LeaseLost(job: job) }
    }

    /// The attempt under `token` failed with `error`: the job waits `backoff` seconds and
    /// is tried again, or is failed for good after its last attempt or when `retry` is
    /// false. A job that would wait again while another with its dedupe key waits
    /// already is cancelled instead (the waiting one does its work). Returns the state
    /// the job is left in; nil when the lease was no longer this token's.
    @discardableResult
    static func fail(_ job: Int64, token: String, error: String, retry: Bool, _ db: any CatalogConnection) throws -> JobState? {
        guard let record = try held(job, token: token, db) else { return nil }
        return try endAttempt(record, error: error, retry: retry, uncounted: false, db)
    }

    /// Hands the job held under `token` back untouched (a worker asked to stop): it waits
    /// again at once, and the attempt is not counted.
    static func handBack(_ job: Int64, token: String, _ db: any CatalogConnection) throws {
        guard let record = try held(job, token: token, db) else { return }
        try endAttempt(record, error: record.lastError, retry: true, uncounted: true, db)
    }

    private static func held(_ job: Int64, token: String, _ db: any CatalogConnection) throws -> JobRecord? {
        try db.fetchAll(
            JobRecord.self, "SELECT \(CatalogSQL(sql: columns)) FROM job WHERE id = \(job) AND lease_token = \(token)\(db.dialect.forUpdate)"
        ).first
    }

    /// How an attempt ends: waiting again (unless it was the last, or `retry` is false),
    /// failed, or cancelled when another job with its dedupe key (`waiting` finds it)
    /// waits to do the same work. The attempt is not counted when `uncounted` (a job
    /// handed back).
    static func ending(_ record: JobRecord, error: String?, retry: Bool, uncounted: Bool, waiting: (String) throws -> Int64?) rethrows
        -> (state: JobState, attempt: Int, lastError: String?)
    {
        let attempt = uncounted ? record.attempt - 1 : record.attempt
        var state: JobState = retry && attempt < record.maxAttempts ? .available : .failed
        var lastError = error
        if state == .available, let key = record.dedupeKey, let other = try waiting(key) {
            state = .cancelled
            lastError = (error.map { $0 + "; " } ?? "") + "job \(other) waits to do the same work"
        }
        return (state, attempt, lastError)
    }

    @discardableResult
    private static func endAttempt(_ record: JobRecord, error: String?, retry: Bool, uncounted: Bool, _ db: any CatalogConnection) throws -> JobState {
        let (state, attempt, lastError) = try ending(record, error: error, retry: retry, uncounted: uncounted) { key in
            try db.fetchOne(Int64.self, "SELECT id FROM job WHERE dedupe_key = \(key) AND state = 'available' AND id <> \(record.id)")
        }
        let finished: CatalogSQL = state.isFinished ? db.dialect.now : "NULL"
        try db.execute(
            """
            UPDATE job SET state = \(state), attempt = \(attempt), last_error = \(lastError), lease_token = NULL, lease_until = NULL,
                           progress = NULL, run_after = \(db.dialect.later(Double(uncounted ? 0 : backoff(afterAttempt: attempt)))),
                           finished_at = \(finished)
            WHERE id = \(record.id)
            """)
        if state == .available { try notify(kinds: [record.kind], db) }
        return state
    }

    /// Seconds before another attempt: 2, 8, 32, … up to ten minutes.
    static func backoff(afterAttempt attempt: Int) -> Int {
        min(600, 2 << (2 * max(0, min(attempt - 1, 8))))
    }

    /// Running jobs whose lease has expired, with the library file each reads; on
    /// PostgreSQL, those another process rescues at the same moment are left to it.
    static func expired(_ db: any CatalogConnection) throws -> [(JobRecord, String?)] {
        let lock: CatalogSQL = db.dialect == .postgres ? " FOR UPDATE OF j SKIP LOCKED" : ""
        return try withFiles(
            """
            SELECT \(CatalogSQL(sql: columns(of: "j"))), r.path FROM job j LEFT JOIN resource r ON r.id = j.resource_id
            WHERE j.state = 'running' AND j.lease_until < \(db.dialect.now)\(lock)
            """, db)
    }

    /// Running jobs held by a process of `host`, with the library file each reads.
    static func held(host: String, _ db: any CatalogConnection) throws -> [(JobRecord, String?)] {
        let lock: CatalogSQL = db.dialect == .postgres ? " FOR UPDATE OF j SKIP LOCKED" : ""
        return try withFiles(
            """
            SELECT \(CatalogSQL(sql: columns(of: "j"))), r.path FROM job j LEFT JOIN resource r ON r.id = j.resource_id
            WHERE j.state = 'running' AND j.host = \(host)\(lock)
            """, db)
    }

    private static func withFiles(_ sql: CatalogSQL, _ db: any CatalogConnection) throws -> [(JobRecord, String?)] {
        var found: [(JobRecord, String?)] = []
        try db.forEachRow(sql) { row in
            found.append((try JobRecord(row: row), row[22]))
            return true
        }
        return found
    }

    /// A running job given up on because its worker is gone (`reason`): tried again, or
    /// failed after its last attempt.
    static func rescue(_ record: JobRecord, reason: String, _ db: any CatalogConnection) throws {
        try endAttempt(record, error: reason, retry: true, uncounted: false, db)
    }

    /// Cancels waiting or running jobs (a running one's worker then commits nothing);
    /// returns those cancelled, in order.
    static func cancel(_ ids: [Int64], _ db: any CatalogConnection) throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try db.fetchAll(
            Int64.self,
            """
            UPDATE job SET state = 'cancelled', finished_at = \(db.dialect.now), lease_token = NULL, lease_until = NULL, progress = NULL
            WHERE id IN \(ids) AND state IN ('available', 'running') RETURNING id
            """
        ).sorted()
    }

    /// Makes failed or cancelled jobs wait again with all their attempts; returns those
    /// that do (one whose work another waiting job does already stays as it is).
    static func retry(_ ids: [Int64], _ db: any CatalogConnection) throws -> [Int64] {
        var retried: [Int64] = []
        for id in ids {
            let done = try db.fetchOne(
                String.self,
                """
                UPDATE job SET state = 'available', attempt = 0, run_after = \(db.dialect.now), finished_at = NULL
                WHERE id = \(id) AND state IN ('failed', 'cancelled')
                  AND NOT EXISTS (SELECT 1 FROM job w WHERE w.dedupe_key = job.dedupe_key AND w.state = 'available')
                RETURNING kind
                """)
            if let done, let kind = JobKind(rawValue: done) {
                retried.append(id)
                try notify(kinds: [kind], db)
            }
        }
        return retried
    }

    /// Every failed job's id.
    static func failedIDs(_ db: any CatalogConnection) throws -> [Int64] {
        try db.fetchAll(Int64.self, "SELECT id FROM job WHERE state = 'failed' ORDER BY id")
    }

    /// A proxy job for a movie `resource` of `asset` made from `source` (an edit's render
    /// of it), when `source` is in a codec browsers do not play (not H.264).
    static func enqueueProxy(of resource: Int64, madeFrom source: Int64?, asset: Int64, priority: Int, _ db: any CatalogConnection) throws {
        guard let source, let codec = try MetadataRecord.videoCodec(of: source, db), codec != "h264" else { return }
        _ = try enqueue([.derived(.proxy, asset: asset, resource: resource, priority: priority)], batch: nil, db)
    }

    /// Of these assets' files, those whose thumbnail job waits or runs.
    static func pendingThumbnails(assets: IDList, _ db: any CatalogConnection) throws -> Set<Int64> {
        try assets.fetchSet(Int64.self, db) {
            """
            SELECT resource_id FROM job
            WHERE asset_id IN \($0) AND kind = 'thumbnail' AND state IN ('available', 'running') AND resource_id IS NOT NULL
            """
        }
    }

    /// Jobs by kind and state.
    static func counts(_ db: any CatalogConnection) throws -> [JobQueueStatus.Count] {
        try db.rows("SELECT kind, state, count(*) FROM job GROUP BY kind, state ORDER BY kind, state").compactMap { row in
            guard let kind: JobKind = row[0], let state: JobState = row[1] else { return nil }
            return JobQueueStatus.Count(kind: kind, state: state, jobs: row[2] ?? 0)
        }
    }

    /// One job.
    static func find(_ id: Int64, _ db: any CatalogConnection) throws -> JobRecord? {
        try db.fetchAll(JobRecord.self, "SELECT \(CatalogSQL(sql: columns)) FROM job WHERE id = \(id)").first
    }

    /// Jobs in `state`, the latest first, `limit` at most.
    static func latest(in state: JobState, limit: Int, _ db: any CatalogConnection) throws -> [JobRecord] {
        try db.fetchAll(JobRecord.self, "SELECT \(CatalogSQL(sql: columns)) FROM job WHERE state = \(state) ORDER BY id DESC LIMIT \(limit)")
    }

    /// How far the jobs of `batch` are.
    static func progress(of batch: String, _ db: any CatalogConnection) throws -> JobBatchProgress {
        var progress = JobBatchProgress()
        for row in try db.rows("SELECT state, count(*) FROM job WHERE batch = \(batch) GROUP BY state") {
            let n: Int = row[1] ?? 0
            progress.total += n
            switch row[0] as JobState? {
            case .done: progress.done += n
            case .failed: progress.failed += n
            case .cancelled: progress.cancelled += n
            case .running: progress.running += n
            default: break
            }
        }
        return progress
    }

    /// The jobs of `batch` that failed, in order.
    static func failed(in batch: String, _ db: any CatalogConnection) throws -> [JobRecord] {
        try db.fetchAll(JobRecord.self, "SELECT \(CatalogSQL(sql: columns)) FROM job WHERE batch = \(batch) AND state = 'failed' ORDER BY id")
    }

    /// Whether a job of `kinds` (of `batch`) waits or runs.
    static func hasWork(kinds: [JobKind], batch: String?, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(
            Int64.self,
            """
            SELECT id FROM job WHERE state IN ('available', 'running') AND kind IN \(kinds)
                                 AND (CAST(\(batch) AS TEXT) IS NULL OR batch = \(batch)) LIMIT 1
            """) != nil
    }

    /// Seconds until a job of `kinds` (of `batch`) can be claimed: 0 when one can now,
    /// nil when none waits.
    static func secondsUntilAvailable(kinds: [JobKind], batch: String?, _ db: any CatalogConnection) throws -> Double? {
        let first = try db.fetchOne(
            String.self,
            "SELECT min(run_after) FROM job WHERE state = 'available' AND kind IN \(kinds) AND (CAST(\(batch) AS TEXT) IS NULL OR batch = \(batch))")
        guard let first else { return nil }
        let seconds = try db.fetchOne(Double.self, "SELECT \(db.dialect.secondsUntil("\(first)"))") ?? 0
        return max(0, seconds)
    }

    /// Deletes done jobs finished more than `days` ago.
    static func prune(olderThanDays days: Int, _ db: any CatalogConnection) throws -> Int {
        try db.execute("DELETE FROM job WHERE state = 'done' AND finished_at < \(db.dialect.later(-Double(days) * 86400))")
    }
}

extension JobKind: DatabaseValueConvertible {}
extension JobState: DatabaseValueConvertible {}
