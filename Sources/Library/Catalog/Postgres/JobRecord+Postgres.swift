import Foundation
import PostgresNIO

/// The job queue's named operations on a PostgreSQL catalog: the same operations, with
/// the same meaning, as JobRecord's on SQLite, in the caller's transaction. A claim takes
/// its job `FOR UPDATE SKIP LOCKED`: workers on several machines claiming at once each
/// take a different job without waiting for one another. Enqueueing notifies the
/// `camlib_jobs` channel, which wakes idle workers (``PostgresJobListener``) when the
/// transaction commits.
extension JobRecord {
    /// The channel of `LISTEN`/`NOTIFY` that enqueueing signals.
    static let channel = "camlib_jobs"

    /// The columns of a job row, in the order ``init(postgres:)`` reads them.
    private static let columns = """
        id, kind, asset_id, resource_id, arguments::text, dedupe_key, batch, state, priority, run_after, attempt, max_attempts,
        host, pid, lease_token, lease_until, progress::text, last_error, result::text, created_at, started_at, finished_at
        """

    init(postgres row: PostgresRow) throws {
        let c = row.makeRandomAccess()
        func string(_ i: Int) throws -> String? { try c[i].decode(String?.self) }
        func integer(_ i: Int) throws -> Int64? { try c[i].decode(Int64?.self) }
        guard let kind = JobKind(rawValue: try string(1) ?? ""), let state = JobState(rawValue: try string(7) ?? "") else {
            throw PostgresCatalogError.server(url: "", detail: "a job row of an unknown kind or state")
        }
        self.init(
            id: try integer(0), kind: kind, assetId: try integer(2) ?? 0, resourceId: try integer(3), arguments: try string(4) ?? "{}",
            dedupeKey: try string(5), batch: try string(6), state: state, priority: Int(try c[8].decode(Int32.self)),
            runAfter: try string(9) ?? "", attempt: Int(try c[10].decode(Int32.self)), maxAttempts: Int(try c[11].decode(Int32.self)),
            host: try string(12), pid: try c[13].decode(Int32?.self), leaseToken: try string(14), leaseUntil: try string(15),
            progress: try string(16), lastError: try string(17), result: try string(18), createdAt: try string(19) ?? "",
            startedAt: try string(20), finishedAt: try string(21))
    }

    /// Enqueues of at least this many jobs refresh the job table's statistics.
    static let analyzeAfter = 500

    static func enqueue(_ jobs: [NewJob], batch: String?, _ session: PostgresSession) throws -> [Int64] {
        var ids: [Int64] = []
        for job in jobs {
            let row = try session.query(
                """
                INSERT INTO job (kind, asset_id, resource_id, arguments, dedupe_key, batch, priority, max_attempts, run_after, created_at)
                VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, catalog_now(), catalog_now())
                ON CONFLICT (dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL
                DO UPDATE SET arguments = excluded.arguments, priority = least(job.priority, excluded.priority),
                              batch = coalesce(excluded.batch, job.batch)
                RETURNING id
                """,
                [job.kind.rawValue, job.asset, job.resource, job.arguments, job.dedupeKey, batch, Int32(job.priority), Int32(job.maxAttempts)])
            ids.append(try row[0].decode(Int64.self))
        }
        // The planner chooses claims' index by the job table's statistics: after a large
        // batch (a library's renders) they would still describe the queue before it.
        if jobs.count >= analyzeAfter { try session.query("ANALYZE job") }
        if !jobs.isEmpty { try session.query("SELECT pg_notify($1, $2)", [channel, Set(jobs.map(\.kind.rawValue)).sorted().joined(separator: ",")]) }
        return ids
    }

    /// Claims the first waiting job of `kinds` (of `batch`, if given). Without a batch, the
    /// claim first reads the first 64 waiting jobs of each kind from `job_claim` and locks
    /// the best of them that no other worker holds: one short index walk per kind, where
    /// one walk in priority order passes every waiting job of other kinds (5.5 ms at p95
    /// behind 10,000 of them). The candidates are a materialised CTE, sorted by their own
    /// keys, then looked up by id: as a plain subquery, the planner walked the priority
    /// index and tested each job against them (130 ms). When all of them are held (more
    /// than 64 workers of one kind), it walks the whole queue.
    static func claim(kinds: [JobKind], batch: String?, worker: WorkerIdentity, token: String, leaseSeconds: Int, _ session: PostgresSession)
        throws -> JobRecord?
    {
        let take = "UPDATE job SET state = 'running', attempt = attempt + 1, host = $1, pid = $2, lease_token = $3, lease_until = catalog_later($4), started_at = catalog_now(), progress = NULL"
        if batch == nil,
            let record = try session.query(
                """
                \(take)
                WHERE id = (WITH candidates AS MATERIALIZED (
                                SELECT first.id, first.priority, first.run_after FROM unnest($5::text[]) AS wanted(kind)
                                CROSS JOIN LATERAL (SELECT id, priority, run_after FROM job
                                                    WHERE state = 'available' AND kind = wanted.kind AND run_after <= catalog_now()
                                                    ORDER BY priority, run_after, id LIMIT 64) AS first)
                            SELECT j.id FROM candidates c JOIN job j ON j.id = c.id
                            WHERE j.state = 'available' AND j.run_after <= catalog_now()
                            ORDER BY c.priority, c.run_after, c.id LIMIT 1
                            FOR UPDATE OF j SKIP LOCKED)
                RETURNING \(columns)
                """, [worker.host, worker.pid, token, Double(leaseSeconds), kinds.map(\.rawValue)]
            ).first
        {
            return try JobRecord(postgres: record)
        }
        return try session.query(
            """
            \(take)
            WHERE id = (SELECT id FROM job
                        WHERE state = 'available' AND run_after <= catalog_now() AND kind = ANY($5)
                          AND ($6::text IS NULL OR batch = $6)
                        ORDER BY priority, run_after, id LIMIT 1
                        FOR UPDATE SKIP LOCKED)
            RETURNING \(columns)
            """, [worker.host, worker.pid, token, Double(leaseSeconds), kinds.map(\.rawValue), batch]
        ).first.map(JobRecord.init(postgres:))
    }

    static func renew(_ tokens: [String], leaseSeconds: Int, _ session: PostgresSession) throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        return Set(
            try session.query(
                "UPDATE job SET lease_until = catalog_later($1) WHERE lease_token = ANY($2) AND state = 'running' RETURNING lease_token",
                [Double(leaseSeconds), tokens]
            ).map { try $0.decode(String.self) })
    }

    static func checkLease(_ job: Int64, token: String, _ session: PostgresSession) throws {
        // FOR SHARE: the row stays this lease's until the caller's transaction ends.
        let held = try session.query("SELECT 1 FROM job WHERE id = $1 AND lease_token = $2 AND state = 'running' FOR SHARE", [job, token])
        guard !held.isEmpty else { throw LeaseLost(job: job) }
    }

    static func setResult(_ result: String, of job: Int64, _ session: PostgresSession) throws {
        try session.query("UPDATE job SET result = $1::json WHERE id = $2 AND state = 'done'", [result, job])
    }

    static func setProgress(_ progress: String, token: String, _ session: PostgresSession) throws -> Bool {
        !(try session.query(
            "UPDATE job SET progress = $1::json WHERE lease_token = $2 AND state = 'running' RETURNING id", [progress, token]
        )).isEmpty
    }

    static func complete(_ job: Int64, token: String, _ session: PostgresSession) throws {
        let done = try session.query(
            """
            UPDATE job SET state = 'done', finished_at = catalog_now(), lease_token = NULL, lease_until = NULL, progress = NULL
            WHERE id = $1 AND lease_token = $2 AND state = 'running' RETURNING id
            """, [job, token])
        guard done.count == 1 else { throw LeaseLost(job: job) }
    }

    @discardableResult
    static func fail(_ job: Int64, token: String, error: String, retry: Bool, _ session: PostgresSession) throws -> JobState? {
        guard let record = try held(job, token: token, session) else { return nil }
        return try endAttempt(record, error: error, retry: retry, uncounted: false, session)
    }

    static func handBack(_ job: Int64, token: String, _ session: PostgresSession) throws {
        guard let record = try held(job, token: token, session) else { return }
        try endAttempt(record, error: record.lastError, retry: true, uncounted: true, session)
    }

    private static func held(_ job: Int64, token: String, _ session: PostgresSession) throws -> JobRecord? {
        try session.query("SELECT \(columns) FROM job WHERE id = $1 AND lease_token = $2 FOR UPDATE", [job, token]).first.map(JobRecord.init(postgres:))
    }

    @discardableResult
    private static func endAttempt(_ record: JobRecord, error: String?, retry: Bool, uncounted: Bool, _ session: PostgresSession) throws -> JobState {
        let (state, attempt, lastError) = try ending(record, error: error, retry: retry, uncounted: uncounted) { key in
            try session.query("SELECT id FROM job WHERE dedupe_key = $1 AND state = 'available' AND id <> $2", [key, record.id]).first?
                .decode(Int64.self)
        }
        try session.query(
            """
            UPDATE job SET state = $1, attempt = $2, last_error = $3, lease_token = NULL, lease_until = NULL, progress = NULL,
                           run_after = catalog_later($4), finished_at = CASE WHEN $5 THEN catalog_now() END
            WHERE id = $6
            """, [state.rawValue, Int32(attempt), lastError, Double(uncounted ? 0 : backoff(afterAttempt: attempt)), state.isFinished, record.id])
        if state == .available { try session.query("SELECT pg_notify($1, $2)", [channel, record.kind.rawValue]) }
        return state
    }

    static func expired(_ session: PostgresSession) throws -> [JobRecord] {
        try session.query("SELECT \(columns) FROM job WHERE state = 'running' AND lease_until < catalog_now() FOR UPDATE SKIP LOCKED")
            .map(JobRecord.init(postgres:))
    }

    static func rescue(_ record: JobRecord, reason: String, _ session: PostgresSession) throws {
        try endAttempt(record, error: reason, retry: true, uncounted: false, session)
    }

    static func cancel(_ ids: [Int64], _ session: PostgresSession) throws -> [Int64] {
        try session.query(
            """
            UPDATE job SET state = 'cancelled', finished_at = catalog_now(), lease_token = NULL, lease_until = NULL, progress = NULL
            WHERE id = ANY($1) AND state IN ('available', 'running') RETURNING id
            """, [ids]
        ).map { try $0.decode(Int64.self) }.sorted()
    }

    static func counts(_ session: PostgresSession) throws -> [JobQueueStatus.Count] {
        try session.query("SELECT kind, state, count(*) FROM job GROUP BY kind, state ORDER BY kind, state").compactMap { row in
            let (kind, state, jobs) = try row.decode((String, String, Int64).self)
            guard let kind = JobKind(rawValue: kind), let state = JobState(rawValue: state) else { return nil }
            return JobQueueStatus.Count(kind: kind, state: state, jobs: Int(jobs))
        }
    }
}
