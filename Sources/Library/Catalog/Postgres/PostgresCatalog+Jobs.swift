import Foundation

/// The job queue of a catalog on PostgreSQL, without a library folder: what bench/jobs.py
/// times. A claim, a completion or a progress report is a single statement that the
/// server commits by itself.
extension PostgresCatalog {
    /// Adds jobs (made together as `batch`) and wakes idle workers when they commit.
    public func enqueue(_ jobs: [NewJob], batch: String? = nil) throws -> [Int64] {
        guard !jobs.isEmpty else { return [] }
        return try write { session in try JobRecord.enqueue(jobs, batch: batch, session) }
    }

    /// Leases the first available job of `kinds` to `worker`, skipping jobs other
    /// workers are claiming at the same moment.
    public func claimJob(kinds: [JobKind] = JobKind.allCases, batch: String? = nil, worker: WorkerIdentity = .current) throws -> JobLease? {
        let token = UUID().uuidString.lowercased()
        let record = try withSession { session in
            try JobRecord.claim(kinds: kinds, batch: batch, worker: worker, token: token, leaseSeconds: PhotoLibrary.leaseSeconds, session)
        }
        return record.map { JobLease(job: $0.job, token: token) }
    }

    /// Records how far a leased job is; false when its lease is lost.
    public func reportProgress(_ lease: JobLease, _ progress: String) throws -> Bool {
        try withSession { session in try JobRecord.setProgress(progress, token: lease.token, session) }
    }

    /// The leased job is done; throws ``LeaseLost`` when the lease is no longer this one's.
    public func completeJob(_ lease: JobLease) throws {
        try withSession { session in try JobRecord.complete(lease.job.id, token: lease.token, session) }
    }

    /// Cancels waiting or running jobs; returns those cancelled.
    public func cancelJobs(_ ids: [Int64]) throws -> [Int64] {
        try withSession { session in try JobRecord.cancel(ids, session) }
    }

    /// Copies a SQLite catalog into this one, which must be empty, and checks the copy
    /// (each table's rows and checksum, the summaries included) before committing it.
    /// Returns each table's rows and checksum.
    public func copy(from catalog: Catalog, progress: (String, Int) -> Void = { _, _ in }) throws -> [CatalogCopyTable] {
        try CatalogCopy(source: catalog, target: self).run(progress: progress).tables
    }
}

/// One table of a checked catalog copy.
public typealias CatalogCopyTable = CatalogCopy.Report.Table
