import Foundation

extension PhotoLibrary {
    /// Seconds a claim holds a job before another worker may take it over; a worker
    /// renews its lease every third of this. 60, or `CAMLIB_JOB_LEASE_SECONDS` (at least 3):
    /// a shorter lease hands a stopped worker's jobs over sooner, at a heartbeat's cost.
    public static let leaseSeconds: Int = {
        let given = ProcessInfo.processInfo.environment["CAMLIB_JOB_LEASE_SECONDS"].flatMap(Int.init)
        return max(3, given ?? 60)
    }()

    /// Adds jobs to the queue, made together as `batch` when given; returns their ids
    /// (a job whose work another waiting job does already returns that job's id).
    @discardableResult
    public func enqueue(_ jobs: [NewJob], batch: String? = nil) throws -> [Int64] {
        guard !jobs.isEmpty else { return [] }
        return try catalog.write { db in try JobRecord.enqueue(jobs, batch: batch, db) }
    }

    /// Leases the next job of `kinds` (of `batch`, when given) to `worker`; nil when none
    /// can run now. Jobs whose leases expired are given back first.
    public func claimJob(kinds: [JobKind] = JobKind.allCases, batch: String? = nil, worker: WorkerIdentity = .current) throws -> JobLease? {
        let token = UUID().uuidString.lowercased()
        let record = try catalog.writeStatements { db in
            try JobRecord.claim(kinds: kinds, batch: batch, worker: worker, token: token, leaseSeconds: Self.leaseSeconds, db)
        }
        return record.map { JobLease(job: $0.job, token: token) }
    }

    /// Renews the leases of `leases`; returns the tokens still held (a lease not among them
    /// was taken over: its work must not be recorded). Also says `worker` is alive.
    public func renewLeases(_ leases: [JobLease], worker: WorkerIdentity = .current) throws -> Set<String> {
        try catalog.write { db in
            try WorkerRecord.beat(worker, job: leases.first?.job.id, db)
            return try JobRecord.renew(leases.map(\.token), leaseSeconds: Self.leaseSeconds, db)
        }
    }

    /// Records how far a running job is (a JSON object); false when its lease is lost.
    @discardableResult
    public func reportProgress(_ lease: JobLease, _ progress: String) throws -> Bool {
        try catalog.writeStatements { db in try JobRecord.setProgress(progress, token: lease.token, db) }
    }

    /// Marks the job done in one transaction with `writes` (the rows the job records),
    /// only while the lease is still this worker's: else throws ``LeaseLost`` and nothing
    /// of `writes` is committed.
    func completeJob<T>(_ lease: JobLease, writes: (any CatalogConnection) throws -> T) throws -> T {
        try catalog.write { db in
            let result = try writes(db)
            try JobRecord.complete(lease.job.id, token: lease.token, db)
            return result
        }
    }

    /// Marks the job done (a job that records no rows).
    public func completeJob(_ lease: JobLease) throws {
        try catalog.writeStatements { db in try JobRecord.complete(lease.job.id, token: lease.token, db) }
    }

    /// The attempt failed: `error` names the asset, the file and the cause. The job is
    /// tried again after a backoff, or failed after its last attempt (at once when
    /// `retry` is false). Returns the state it is left in; nil when the lease was lost.
    @discardableResult
    public func failJob(_ lease: JobLease, error: String, retry: Bool = true) throws -> JobState? {
        try catalog.write { db in try JobRecord.fail(lease.job.id, token: lease.token, error: error, retry: retry, db) }
    }

    /// Gives the job back untouched, for another worker to run (this one stops).
    public func handBackJob(_ lease: JobLease) throws {
        try catalog.write { db in try JobRecord.handBack(lease.job.id, token: lease.token, db) }
    }

    /// Gives back the jobs whose leases expired (their workers were killed, stopped or cut
    /// off), and those held by processes of this host that no longer run: each is tried
    /// again after a backoff, or failed after its last attempt, with an error naming the
    /// asset and the file. Then deletes what processes that ended half-way left in tmp/
    /// (a killed worker's children may outlive it for a moment, past the sweep at open).
    /// Returns how many jobs were given back.
    @discardableResult
    public func rescueJobs(host: String = WorkerIdentity.current.host) throws -> Int {
        defer { removeAbandonedTemporaries() }
        return try catalog.write { db in
            var rescued = 0
            for (job, file) in try JobRecord.expired(db) {
                let holder = "the worker on \(job.host ?? "?") (pid \(job.pid.map(String.init) ?? "?"))"
                try JobRecord.rescue(job, reason: Self.describe(job, file: file, "\(holder) stopped renewing its lease"), db)
                rescued += 1
            }
            for (job, file) in try JobRecord.held(host: host, db) where !Self.isRunning(job.pid ?? 0) {
                try JobRecord.rescue(job, reason: Self.describe(job, file: file, "its worker (pid \(job.pid ?? 0)) ended while it ran"), db)
                rescued += 1
            }
            // Workers of this host that ended without a word (killed); then those of any
            // host not heard from for ten leases.
            for pid in try WorkerRecord.pids(on: host, db) where !Self.isRunning(pid) {
                try WorkerRecord.unregister(WorkerIdentity(host: host, pid: pid), db)
            }
            try WorkerRecord.forgetSilent(seconds: 10 * Self.leaseSeconds, db)
            return rescued
        }
    }

    /// Gives back the job that `worker` held when it died of `cause` (a supervisor saw the
    /// process end): tried again, or failed after its last attempt. Its files in tmp/ are
    /// deleted.
    public func rescueJobs(of worker: WorkerIdentity, cause: String) throws {
        defer { removeAbandonedTemporaries() }
        try catalog.write { db in
            for (job, file) in try JobRecord.held(host: worker.host, db) where job.pid == worker.pid {
                try JobRecord.rescue(job, reason: Self.describe(job, file: file, "the worker \(cause)"), db)
            }
            try WorkerRecord.unregister(worker, db)
        }
    }

    /// "thumbnail of asset 12 (originals/2024/05/IMG_1.HEIC): CAUSE".
    static func describe(_ job: JobRecord, file: String?, _ cause: String) -> String {
        "\(job.kind.noun) of asset \(job.assetId)" + (file.map { " (\($0))" } ?? "") + ": " + cause
    }

    /// Registers `worker` as running jobs of `kinds`.
    public func registerWorker(_ worker: WorkerIdentity = .current, kinds: [JobKind]) throws {
        try catalog.write { db in try WorkerRecord.register(worker, kinds: kinds, db) }
    }

    public func unregisterWorker(_ worker: WorkerIdentity = .current) throws {
        try catalog.write { db in try WorkerRecord.unregister(worker, db) }
    }

    /// Cancels waiting or running jobs; returns those cancelled.
    @discardableResult
    public func cancelJobs(_ ids: [Int64]) throws -> [Int64] {
        try catalog.write { db in try JobRecord.cancel(ids, db) }
    }

    /// Makes failed or cancelled jobs (every failed one when `ids` is nil) wait again with
    /// all their attempts; returns those that do.
    @discardableResult
    public func retryJobs(_ ids: [Int64]?) throws -> [Int64] {
        try catalog.write { db in try JobRecord.retry(ids ?? JobRecord.failedIDs(db), db) }
    }

    /// The queue: counts by kind and state, the workers and what they run, the running
    /// jobs, and the latest `failedLimit` failed jobs with their errors.
    public func jobQueueStatus(failedLimit: Int = 50) throws -> JobQueueStatus {
        try catalog.read { db in
            JobQueueStatus(
                counts: try JobRecord.counts(db), workers: try WorkerRecord.all(db),
                failed: try JobRecord.latest(in: .failed, limit: failedLimit, db).map(\.job),
                running: try JobRecord.latest(in: .running, limit: 1000, db).map(\.job))
        }
    }

    /// One job.
    public func job(_ id: Int64) throws -> Job? {
        try catalog.read { db in try JobRecord.find(id, db)?.job }
    }

    /// How far the jobs made together as `batch` are.
    public func jobProgress(batch: String) throws -> JobBatchProgress {
        try catalog.read { db in try JobRecord.progress(of: batch, db) }
    }

    /// The failed jobs of `batch`, in order.
    public func failedJobs(batch: String) throws -> [Job] {
        try catalog.read { db in try JobRecord.failed(in: batch, db).map(\.job) }
    }

    /// Whether a job of `kinds` (of `batch`) waits or runs.
    public func hasJobs(kinds: [JobKind] = JobKind.allCases, batch: String? = nil) throws -> Bool {
        try catalog.read { db in try JobRecord.hasWork(kinds: kinds, batch: batch, db) }
    }

    /// Seconds until a waiting job of `kinds` (of `batch`) can be claimed: 0 when one can
    /// now; nil when none waits.
    public func secondsUntilJob(kinds: [JobKind] = JobKind.allCases, batch: String? = nil) throws -> Double? {
        try catalog.read { db in try JobRecord.secondsUntilAvailable(kinds: kinds, batch: batch, db) }
    }

    /// Deletes done jobs finished more than `days` ago; returns how many.
    @discardableResult
    public func pruneJobs(olderThanDays days: Int = 7) throws -> Int {
        try catalog.write { db in try JobRecord.prune(olderThanDays: days, db) }
    }
}
