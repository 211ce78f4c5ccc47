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

extension JobRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "job"

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The catalog's clock, as its `*_at` columns hold time.
    static let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    /// The catalog's clock `seconds` (a statement argument) from now.
    static let later = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || CAST(? AS TEXT) || ' seconds')"

    /// Adds `jobs` (made together as `batch`, when given); returns their ids. A job whose
    /// dedupe key a waiting job has already takes that job's place: its arguments and the
    /// higher of the two priorities go to the waiting job, whose id is returned.
    static func enqueue(_ jobs: [NewJob], batch: String?, _ db: Database) throws -> [Int64] {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO job (kind, asset_id, resource_id, arguments, dedupe_key, batch, priority, max_attempts, run_after, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, \(now), \(now))
                ON CONFLICT (dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL
                DO UPDATE SET arguments = excluded.arguments, priority = min(priority, excluded.priority),
                              batch = coalesce(excluded.batch, batch)
                RETURNING id
                """)
        var ids: [Int64] = []
        for job in jobs {
            let id = try Int64.fetchOne(
                insert,
                arguments: [
                    job.kind.rawValue, job.asset, job.resource, job.arguments, job.dedupeKey, batch, job.priority, job.maxAttempts,
                ])
            ids.append(id!)
        }
        return ids
    }

    /// Leases the first available job (of `kinds`, of `batch` when given) to `worker` for
    /// `leaseSeconds`, under a new `token`.
    static func claim(kinds: [JobKind], batch: String?, worker: WorkerIdentity, token: String, leaseSeconds: Int, _ db: Database) throws
        -> JobRecord?
    {
        let kindList = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: """
                UPDATE job SET state = 'running', attempt = attempt + 1, host = ?, pid = ?, lease_token = ?,
                               lease_until = \(later), started_at = \(now), progress = NULL
                WHERE id = (SELECT id FROM job
                            WHERE state = 'available' AND run_after <= \(now) AND kind IN (\(kindList))
                              AND (? IS NULL OR batch = ?)
                            ORDER BY priority, run_after, id LIMIT 1)
                RETURNING *
                """)
        return try JobRecord.fetchOne(statement, arguments: [worker.host, worker.pid, token, leaseSeconds, batch, batch])
    }

    /// Extends the leases still held under `tokens` by `leaseSeconds`; returns those held.
    static func renew(_ tokens: [String], leaseSeconds: Int, _ db: Database) throws -> Set<String> {
        let statement = try db.cachedStatement(
            sql: "UPDATE job SET lease_until = \(later) WHERE lease_token = ? AND state = 'running' RETURNING lease_token")
        var held = Set<String>()
        for token in tokens {
            if let kept = try String.fetchOne(statement, arguments: [leaseSeconds, token]) { held.insert(kept) }
        }
        return held
    }

    /// Throws ``LeaseLost`` (rolling back the caller's transaction) unless the job is still
    /// held under `token`: the fence of a job that writes more than once before it is done.
    static func checkLease(_ job: Int64, token: String, _ db: Database) throws {
        let held = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM job WHERE id = ? AND lease_token = ? AND state = 'running')"),
            arguments: [job, token])
        guard held == true else { throw LeaseLost(job: job) }
    }

    /// What a done job answered (JSON).
    static func setResult(_ result: String, of job: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE job SET result = ? WHERE id = ? AND state = 'done'", arguments: [result, job])
    }

    /// Records how far the job held under `token` is; false when the lease is lost.
    static func setProgress(_ progress: String, token: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "UPDATE job SET progress = ? WHERE lease_token = ? AND state = 'running'", arguments: [progress, token])
        return db.changesCount == 1
    }

    /// The job held under `token` is done (an earlier attempt's error is kept): throws ``LeaseLost`` (and so rolls back the
    /// caller's transaction, with the rows the job wrote in it) when the lease is no
    /// longer that token's.
    static func complete(_ job: Int64, token: String, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE job SET state = 'done', finished_at = \(now), lease_token = NULL, lease_until = NULL, progress = NULL
                WHERE id = ? AND lease_token = ? AND state = 'running'
                """, arguments: [job, token])
        guard db.changesCount == 1 else { throw LeaseLost(job: job) }
    }

    /// The attempt under `token` failed with `error`: the job waits `backoff` seconds and
    /// is tried again, or is failed for good after its last attempt or when `retry` is
    /// false. A job that would wait again while another with its dedupe key waits
    /// already is cancelled instead (the waiting one does its work). Returns the state
    /// the job is left in; nil when the lease was no longer this token's.
    @discardableResult
    static func fail(_ job: Int64, token: String, error: String, retry: Bool, _ db: Database) throws -> JobState? {
        guard let record = try JobRecord.filter(Column("id") == job).filter(Column("lease_token") == token).fetchOne(db) else { return nil }
        return try endAttempt(record, error: error, retry: retry, uncounted: false, db)
    }

    /// Hands the job held under `token` back untouched (a worker asked to stop): it waits
    /// again at once, and the attempt is not counted.
    static func handBack(_ job: Int64, token: String, _ db: Database) throws {
        guard let record = try JobRecord.filter(Column("id") == job).filter(Column("lease_token") == token).fetchOne(db) else { return }
        try endAttempt(record, error: record.lastError, retry: true, uncounted: true, db)
    }

    /// How an attempt ends, on either backend: waiting again (unless it was the last, or
    /// `retry` is false), failed, or cancelled when another job with its dedupe key
    /// (`waiting` finds it) waits to do the same work. The attempt is not counted when
    /// `uncounted` (a job handed back).
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
    private static func endAttempt(_ record: JobRecord, error: String?, retry: Bool, uncounted: Bool, _ db: Database) throws -> JobState {
        let (state, attempt, lastError) = try ending(record, error: error, retry: retry, uncounted: uncounted) { key in
            try Int64.fetchOne(db, sql: "SELECT id FROM job WHERE dedupe_key = ? AND state = 'available' AND id <> ?", arguments: [key, record.id])
        }
        try db.execute(
            sql: """
                UPDATE job SET state = ?, attempt = ?, last_error = ?, lease_token = NULL, lease_until = NULL, progress = NULL,
                               run_after = \(later), finished_at = CASE WHEN ? THEN \(now) END
                WHERE id = ?
                """,
            arguments: [state.rawValue, attempt, lastError, uncounted ? 0 : backoff(afterAttempt: attempt), state.isFinished, record.id])
        return state
    }

    /// Seconds before another attempt: 2, 8, 32, … up to ten minutes.
    static func backoff(afterAttempt attempt: Int) -> Int {
        min(600, 2 << (2 * max(0, min(attempt - 1, 8))))
    }

    /// Running jobs whose lease has expired, with the library file each reads.
    static func expired(_ db: Database) throws -> [(JobRecord, String?)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT j.*, r.path AS file FROM job j LEFT JOIN resource r ON r.id = j.resource_id
                WHERE j.state = 'running' AND j.lease_until < \(now)
                """
        ).map { (try JobRecord(row: $0), $0["file"]) }
    }

    /// Running jobs held by a process of `host`, with the library file each reads.
    static func held(host: String, _ db: Database) throws -> [(JobRecord, String?)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT j.*, r.path AS file FROM job j LEFT JOIN resource r ON r.id = j.resource_id
                WHERE j.state = 'running' AND j.host = ?
                """, arguments: [host]
        ).map { (try JobRecord(row: $0), $0["file"]) }
    }

    /// A running job given up on because its worker is gone (`reason`): tried again, or
    /// failed after its last attempt.
    static func rescue(_ record: JobRecord, reason: String, _ db: Database) throws {
        try endAttempt(record, error: reason, retry: true, uncounted: false, db)
    }

    /// Cancels waiting or running jobs (a running one's worker then commits nothing);
    /// returns those cancelled.
    static func cancel(_ ids: [Int64], _ db: Database) throws -> [Int64] {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE job SET state = 'cancelled', finished_at = \(now), lease_token = NULL, lease_until = NULL, progress = NULL
                WHERE id = ? AND state IN ('available', 'running') RETURNING id
                """)
        return try ids.compactMap { try Int64.fetchOne(statement, arguments: [$0]) }
    }

    /// Makes failed or cancelled jobs wait again with all their attempts; returns those
    /// that do (one whose work another waiting job does already stays as it is).
    static func retry(_ ids: [Int64], _ db: Database) throws -> [Int64] {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE job SET state = 'available', attempt = 0, run_after = \(now), finished_at = NULL
                WHERE id = ? AND state IN ('failed', 'cancelled')
                  AND NOT EXISTS (SELECT 1 FROM job w WHERE w.dedupe_key = job.dedupe_key AND w.state = 'available')
                RETURNING id
                """)
        return try ids.compactMap { try Int64.fetchOne(statement, arguments: [$0]) }
    }

    /// Every failed job's id.
    static func failedIDs(_ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'failed' ORDER BY id")
    }

    /// A proxy job for a movie `resource` of `asset` made from `source` (an edit's render
    /// of it), when `source` is in a codec browsers do not play (not H.264).
    static func enqueueProxy(of resource: Int64, madeFrom source: Int64?, asset: Int64, priority: Int, _ db: Database) throws {
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
    static func counts(_ db: Database) throws -> [JobQueueStatus.Count] {
        try Row.fetchAll(db, sql: "SELECT kind, state, count(*) FROM job GROUP BY kind, state ORDER BY kind, state").compactMap { row in
            guard let kind = JobKind(rawValue: row[0]), let state = JobState(rawValue: row[1]) else { return nil }
            return JobQueueStatus.Count(kind: kind, state: state, jobs: row[2])
        }
    }

    /// Jobs in `state`, the latest first, `limit` at most.
    static func latest(in state: JobState, limit: Int, _ db: Database) throws -> [JobRecord] {
        try JobRecord.filter(Column("state") == state.rawValue).order(Column("id").desc).limit(limit).fetchAll(db)
    }

    /// How far the jobs of `batch` are.
    static func progress(of batch: String, _ db: Database) throws -> JobBatchProgress {
        var progress = JobBatchProgress()
        for row in try Row.fetchAll(db, sql: "SELECT state, count(*) FROM job WHERE batch = ? GROUP BY state", arguments: [batch]) {
            let n: Int = row[1]
            progress.total += n
            switch JobState(rawValue: row[0]) {
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
    static func failed(in batch: String, _ db: Database) throws -> [JobRecord] {
        try JobRecord.filter(Column("batch") == batch).filter(Column("state") == JobState.failed.rawValue).order(Column("id")).fetchAll(db)
    }

    /// Whether a job of `kinds` (of `batch`) waits or runs.
    static func hasWork(kinds: [JobKind], batch: String?, _ db: Database) throws -> Bool {
        let kindList = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM job WHERE state IN ('available', 'running') AND kind IN (\(kindList))
                               AND (? IS NULL OR batch = ?))
                """, arguments: [batch, batch]) ?? false
    }

    /// Seconds until a job of `kinds` (of `batch`) can be claimed: 0 when one can now,
    /// nil when none waits.
    static func secondsUntilAvailable(kinds: [JobKind], batch: String?, _ db: Database) throws -> Double? {
        let kindList = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try Double.fetchOne(
            db,
            sql: """
                SELECT max(0, (julianday(min(run_after)) - julianday('now')) * 86400) FROM job
                WHERE state = 'available' AND kind IN (\(kindList)) AND (? IS NULL OR batch = ?)
                """, arguments: [batch, batch])
    }

    /// Deletes done jobs finished more than `days` ago.
    static func prune(olderThanDays days: Int, _ db: Database) throws -> Int {
        try db.execute(
            sql: "DELETE FROM job WHERE state = 'done' AND finished_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)", arguments: ["-\(days) days"])
        return db.changesCount
    }
}

extension JobKind: DatabaseValueConvertible {}
extension JobState: DatabaseValueConvertible {}
