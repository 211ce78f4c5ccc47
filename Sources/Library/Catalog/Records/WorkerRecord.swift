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

    static func register(_ worker: WorkerIdentity, kinds: [JobKind], _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO worker (host, pid, kinds, started_at, heartbeat_at) VALUES (?, ?, ?, \(JobRecord.now), \(JobRecord.now))
                ON CONFLICT (host, pid) DO UPDATE SET kinds = excluded.kinds, job_id = NULL, started_at = excluded.started_at,
                                                      heartbeat_at = excluded.heartbeat_at
                """, arguments: [worker.host, worker.pid, kinds.map(\.rawValue).joined(separator: ",")])
    }

    /// The worker is alive, and runs `job` (nil: none).
    static func beat(_ worker: WorkerIdentity, job: Int64?, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE worker SET heartbeat_at = \(JobRecord.now), job_id = ? WHERE host = ? AND pid = ?",
            arguments: [job, worker.host, worker.pid])
    }

    static func unregister(_ worker: WorkerIdentity, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM worker WHERE host = ? AND pid = ?", arguments: [worker.host, worker.pid])
    }

    /// The pids of the workers registered on `host`.
    static func pids(on host: String, _ db: Database) throws -> [Int32] {
        try Int32.fetchAll(db, sql: "SELECT pid FROM worker WHERE host = ?", arguments: [host])
    }

    /// Forgets workers not heard from for `seconds`.
    static func forgetSilent(seconds: Int, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM worker WHERE heartbeat_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)", arguments: ["-\(seconds) seconds"])
    }

    /// Every worker with what it runs now.
    static func all(_ db: Database) throws -> [JobQueueStatus.Worker] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT w.host, w.pid, w.kinds, w.job_id, j.kind, j.asset_id, w.started_at, w.heartbeat_at
                FROM worker w LEFT JOIN job j ON j.id = w.job_id ORDER BY w.host, w.pid
                """
        ).map { row in
            JobQueueStatus.Worker(
                host: row[0], pid: row[1], kinds: (row[2] as String).split(separator: ",").compactMap { JobKind(rawValue: String($0)) },
                job: row[3], jobKind: (row[4] as String?).flatMap(JobKind.init(rawValue:)), asset: row[5], startedAt: row[6],
                heartbeatAt: row[7])
        }
    }
}
