import Foundation
import PostgresNIO
import Testing
import TestSupport

@testable import Library

/// The job queue on a PostgreSQL catalog, with several connections as several machines'
/// workers would have: each job claimed once, fenced by its lease, retried with backoff,
/// and idle workers woken by NOTIFY.
@Suite struct PostgresJobQueueTests {
    /// A migrated catalog in a new database of this process's cluster, with `assets` assets.
    private func catalog(assets: Int) throws -> (PostgresCatalog, PostgresLocation) {
        let server = try PostgresServer.shared()
        let location = try PostgresLocation(url: server.url(database: try server.createDatabase("jobs")))
        let catalog = try PostgresCatalog(location: location)
        try catalog.write { session in
            try session.query("INSERT INTO asset (kind, imported_at) SELECT 'photo', catalog_now() FROM generate_series(1, $1)", [Int32(assets)])
        }
        return (catalog, location)
    }

    @Test func workersOnManyConnectionsTakeEachJobExactlyOnce() throws {
        let (catalog, location) = try catalog(assets: 50)
        defer { catalog.close() }
        let queued = try catalog.write { session in
            try JobRecord.enqueue((1...200).map { NewJob(kind: .thumbnail, asset: Int64($0 % 50 + 1)) }, batch: "b", session)
        }
        #expect(Set(queued).count == 200)
        let claims = Claims()
        // Connected before any claims, so that no worker has the queue to itself while
        // the others are still logging in.
        let sessions = try (0..<4).map { _ in try PostgresSession(location) }
        defer { sessions.forEach { $0.close() } }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let session = sessions[worker]
                let me = WorkerIdentity(host: "host-\(worker)", pid: Int32(1000 + worker))
                while true {
                    let token = UUID().uuidString
                    let done: Int64? = try session.transaction {
                        guard let job = try JobRecord.claim(kinds: [.thumbnail], batch: "b", worker: me, token: token, leaseSeconds: 60, session) else {
                            return nil
                        }
                        try JobRecord.complete(job.id!, token: token, session)
                        return job.id!
                    }
                    guard let done else { break }
                    claims.add(done, by: me.host)
                }
            } catch {
                claims.fail("\(error)")
            }
        }
        #expect(claims.errors.isEmpty, "\(claims.errors)")
        #expect(claims.ids.count == 200, "no job claimed twice")
        #expect(Set(claims.ids) == Set(queued))
        #expect(claims.hosts.count > 1, "the work was shared")
        let counts = try catalog.withSession { try JobRecord.counts($0) }
        #expect(counts == [JobQueueStatus.Count(kind: .thumbnail, state: .done, jobs: 200)])
    }

    @Test func aClaimTakesTheFirstJobOfItsKindsBehindThousandsOfOthers() throws {
        let (catalog, _) = try catalog(assets: 1)
        defer { catalog.close() }
        let me = WorkerIdentity(host: "here", pid: 1)
        _ = try catalog.write { session in
            try JobRecord.enqueue((0..<3000).map { _ in NewJob(kind: .auxPNG, asset: 1, priority: -1) }, batch: nil, session)
            return try JobRecord.enqueue(
                [NewJob(kind: .preview, asset: 1, priority: 5), NewJob(kind: .render, asset: 1, priority: 1), NewJob(kind: .preview, asset: 1, priority: 0),
                 NewJob(kind: .thumbnail, asset: 1, priority: -5)], batch: nil, session)
        }
        var order: [String] = []
        while let job = try catalog.write({ session in
            try JobRecord.claim(kinds: [.preview, .render], batch: nil, worker: me, token: UUID().uuidString, leaseSeconds: 60, session)
        }) {
            order.append("\(job.kind.rawValue) \(job.priority)")
        }
        // By priority across the kinds asked for; none of the others.
        #expect(order == ["preview 0", "render 1", "preview 5"])
    }

    @Test func aWorkerWhoseLeaseWasTakenOverCommitsNothing() throws {
        let (catalog, location) = try catalog(assets: 1)
        defer { catalog.close() }
        let slow = WorkerIdentity(host: "slow", pid: 1)
        let other = WorkerIdentity(host: "other", pid: 2)
        let id = try catalog.write { session in try JobRecord.enqueue([NewJob(kind: .render, asset: 1)], batch: nil, session)[0] }
        let first = try catalog.write { session in try JobRecord.claim(kinds: [.render], batch: nil, worker: slow, token: "A", leaseSeconds: 60, session) }
        #expect(first?.id == id && first?.attempt == 1 && first?.host == "slow")
        // The slow worker stops answering: its lease runs out and the job is rescued.
        try catalog.write { session in
            try session.query("UPDATE job SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = $1", [id])
            for (record, _) in try JobRecord.expired(session) { try JobRecord.rescue(record, reason: "the worker on slow stopped", session) }
        }
        try catalog.write { session in try session.query("UPDATE job SET run_after = catalog_now() WHERE id = $1", [id]) }
        let second = try catalog.write { session in try JobRecord.claim(kinds: [.render], batch: nil, worker: other, token: "B", leaseSeconds: 60, session) }
        #expect(second?.attempt == 2 && second?.lastError == "the worker on slow stopped")
        // The slow worker wakes and tries to record its work with what it wrote: refused, and rolled back.
        let session = try PostgresSession(location)
        defer { session.close() }
        #expect(throws: LeaseLost.self) {
            try session.transaction {
                try session.query("INSERT INTO keyword (name) VALUES ('written by a stale worker')")
                try JobRecord.checkLease(id, token: "A", session)
            }
        }
        #expect(throws: LeaseLost.self) { try session.transaction { try JobRecord.complete(id, token: "A", session) } }
        #expect(try session.query("SELECT count(*) FROM keyword").first?.decode(Int64.self) == 0)
        try session.transaction { try JobRecord.complete(id, token: "B", session) }
        #expect(try session.query("SELECT state || ' by ' || host FROM job WHERE id = $1", [id]).first?.decode(String.self) == "done by other")
    }

    @Test func aFailingJobWaitsLongerEachTimeThenFailsAndDuplicatesWaitOnce() throws {
        let (catalog, _) = try catalog(assets: 1)
        defer { catalog.close() }
        let me = WorkerIdentity(host: "here", pid: 1)
        let ids = try catalog.write { session in
            try JobRecord.enqueue(
                [NewJob(kind: .proxy, asset: 1, dedupeKey: "proxy:1", priority: 5), NewJob(kind: .proxy, asset: 1, arguments: #"{"again":true}"#, dedupeKey: "proxy:1", priority: 2)],
                batch: nil, session)
        }
        #expect(ids[0] == ids[1], "the second takes the waiting one's place")
        let merged = try catalog.withSession { try $0.query("SELECT priority, arguments ->> 'again' FROM job").first?.decode((Int32, String?).self) }
        #expect(merged?.0 == 2 && merged?.1 == "true")
        var waits: [Double] = []
        for attempt in 1...3 {
            let state: JobState? = try catalog.write { session in
                try session.query("UPDATE job SET run_after = catalog_now()")
                let job = try #require(try JobRecord.claim(kinds: [.proxy], batch: nil, worker: me, token: "t\(attempt)", leaseSeconds: 60, session))
                #expect(job.attempt == attempt)
                return try JobRecord.fail(job.id!, token: "t\(attempt)", error: "asset 1: cannot decode IMG_0001.MOV", retry: true, session)
            }
            #expect(state == (attempt < 3 ? .available : .failed))
            if attempt < 3 {
                waits.append(try catalog.withSession { session in
                    try session.query("SELECT (julianday(run_after) - julianday(catalog_now())) * 86400 FROM job").first!.decode(Double.self)
                })
            }
        }
        #expect(waits.count == 2 && abs(waits[0] - Double(JobRecord.backoff(afterAttempt: 1))) < 1 && abs(waits[1] - Double(JobRecord.backoff(afterAttempt: 2))) < 1)
        #expect(try catalog.withSession { try JobRecord.counts($0) } == [JobQueueStatus.Count(kind: .proxy, state: .failed, jobs: 1)])
    }

    @Test func anIdleWorkerIsWokenWhenAJobIsQueued() throws {
        let (catalog, location) = try catalog(assets: 1)
        defer { catalog.close() }
        let listener = try PostgresJobListener(location)
        defer { listener.close() }
        #expect(listener.wait(timeout: 0.2) == false, "nothing queued yet")
        // Queued, not committed: no wake-up until the commit.
        let other = try PostgresSession(location)
        defer { other.close() }
        try other.query("BEGIN")
        _ = try JobRecord.enqueue([NewJob(kind: .thumbnail, asset: 1)], batch: nil, other)
        #expect(listener.wait(timeout: 0.3) == false, "a notification arrives only with its commit")
        try other.query("COMMIT")
        #expect(listener.wait(timeout: 30), "woken by the commit, not by a poll")
        // Its connection ended (a server restart), it says so, for a worker to listen again.
        #expect(!listener.isLost)
        try other.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN \(JobRecord.channel)'")
        for _ in 0..<100 where !listener.isLost { usleep(20_000) }
        #expect(listener.isLost)
    }
}

private final class Claims: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var ids: [Int64] = []
    private(set) var hosts: Set<String> = []
    private(set) var errors: [String] = []
    func add(_ id: Int64, by host: String) { lock.withLock { ids.append(id); hosts.insert(host) } }
    func fail(_ error: String) { lock.withLock { errors.append(error) } }
}
