import Foundation
import GRDB

/// A row of `worker` (0019): a process that runs jobs, while it runs.
struct WorkerRecord: Codable, Sendable, FetchableRecord {
    var host: String
    var pid: Int32
    var kinds: String
    var jobId: Int64?
    var startedAt: String
    var heartbeatAt: String

    enum CodingKeys: String, CodingKey {
        case host, pid, kinds, jobId = "job_id", startedAt = "started_at", heartbeatAt = "heartbeat_at"
    }

    static func register(_ worker: WorkerIdentity, kinds: [JobKind], _ db: any CatalogConnection) throws {
        let now = db.dialect.now
        try db.execute(
            """
            INSERT INTO worker (host, pid, kinds, started_at, heartbeat_at)
            VALUES (\(worker.host), \(worker.pid), \(kinds.map(\.rawValue).joined(separator: ",")), \(now), \(now))
            ON CONFLICT (host, pid) DO UPDATE SET kinds = excluded.kinds, job_id = NULL, started_at = excluded.started_at,
                                                  heartbeat_at = excluded.heartbeat_at
            """)
    }

    /// The worker is alive, and runs `job` (nil: none).
    static func beat(_ worker: WorkerIdentity, job: Int64?, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE worker SET heartbeat_at = \(db.dialect.now), job_id = \(job) WHERE host = \(worker.host) AND pid = \(worker.pid)")
    }

    static func unregister(_ worker: WorkerIdentity, _ db: any CatalogConnection) throws {
        try db.execute("DELETE FROM worker WHERE host = \(worker.host) AND pid = \(worker.pid)")
    }

    /// The pids of the workers registered on `host`.
    static func pids(on host: String, _ db: any CatalogConnection) throws -> [Int32] {
        try db.fetchAll(Int32.self, "SELECT pid FROM worker WHERE host = \(host)")
    }

    /// Forgets workers not heard from for `seconds`.
    static func forgetSilent(seconds: Int, _ db: any CatalogConnection) throws {
        try db.execute("DELETE FROM worker WHERE heartbeat_at < \(db.dialect.later(-Double(seconds)))")
    }

    /// Every worker with what it runs now, by host.
    static func all(_ db: any CatalogConnection) throws -> [JobQueueStatus.Worker] {
        try db.rows(
            """
            SELECT w.host, w.pid, w.kinds, w.job_id, j.kind, j.asset_id, w.started_at, w.heartbeat_at
            FROM worker w LEFT JOIN job j ON j.id = w.job_id ORDER BY w.host, w.pid
            """
        ).map { row in
            JobQueueStatus.Worker(
                host: try row.required(0), pid: try row.required(1),
                kinds: (try row.required(2) as String).split(separator: ",").compactMap { JobKind(rawValue: String($0)) },
                job: row[3], jobKind: row[4], asset: row[5], startedAt: try row.required(6), heartbeatAt: try row.required(7))
        }
    }
}
