import Foundation
import Testing
import TestSupport

@testable import Library

/// The job queue of 0019: claims in order, leases that fence a worker whose lease was
/// taken over, retries with backoff, and jobs of dead workers given back; on either backend.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct JobQueueTests {
    /// A library of the corpus's Live Photos, on one backend.
    struct Fixture {
        let scratch: ScratchDirectory
        let library: PhotoLibrary
        /// Asset id → its still's resource id.
        let stills: [Int64: Int64]

        init(_ backend: CatalogBackend) throws {
            scratch = try ScratchDirectory()
            library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL("jobs"))
            _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo")])
            stills = try library.catalog.read { db in
                Dictionary(uniqueKeysWithValues: try db.rows("SELECT asset_id, id FROM resource WHERE role = 'photo'").map { (try $0.required(0), try $0.required(1)) })
            }
        }

        var assets: [Int64] { stills.keys.sorted() }

        /// Ends the lease of `job` now, as if its worker had gone silent a minute ago.
        func expire(_ job: Int64) throws {
            try library.catalog.write { db in try db.execute("UPDATE job SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = \(job)") }
        }

        func runAfterNow(_ job: Int64) throws {
            try library.catalog.write { db in try db.execute("UPDATE job SET run_after = '2000-01-01T00:00:00.000Z' WHERE id = \(job)") }
        }
    }

    let me = WorkerIdentity(host: "here", pid: getpid())
    let other = WorkerIdentity(host: "elsewhere", pid: 1)

    @Test(arguments: CatalogBackend.allCases) func jobsAreClaimedByPriorityThenAgeAndAWaitingJobIsNotQueuedTwice(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let (a, b) = (assets[0], assets[1])
        let first = try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)])
        let urgent = try library.enqueue([.derived(.thumbnail, asset: b, resource: stills[b]!, priority: -1)])
        // The same work again: the waiting job's id, and one row.
        #expect(try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)]) == first)
        #expect(try library.jobQueueStatus().counts.map(\.jobs).reduce(0, +) == 2)

        #expect(try library.claimJob(kinds: [.render], worker: me) == nil)
        let one = try #require(try library.claimJob(worker: me))
        #expect(one.job.id == urgent[0] && one.job.state == .running && one.job.attempt == 1 && one.job.host == "here")
        let two = try #require(try library.claimJob(worker: other))
        #expect(two.job.id == first[0])
        #expect(try library.claimJob(worker: me) == nil)
        // While one runs, the same work may wait again (a newer request for it).
        #expect(try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)]) != first)
    }

    @Test(arguments: CatalogBackend.allCases) func aWorkerWhoseLeaseWasTakenOverRecordsNothing(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let a = assets[0]
        try library.enqueue([.derived(.thumbnail, asset: a, resource: stills[a]!)])
        let stale = try #require(try library.claimJob(worker: other))
        // The first worker stops (SIGSTOP, a lost network): its lease expires, and the
        // job goes back and is taken over.
        try f.expire(stale.job.id)
        #expect(try library.rescueJobs(host: "nowhere") == 1)
        #expect(try library.job(stale.job.id)?.state == .available)
        try f.runAfterNow(stale.job.id)
        let fresh = try #require(try library.claimJob(worker: me))
        #expect(fresh.job.id == stale.job.id && fresh.job.attempt == 2)
        #expect(try library.renewLeases([stale], worker: other).isEmpty)
        #expect(try library.renewLeases([fresh], worker: me) == [fresh.token])
        // The first worker comes back and finishes: its rows are not committed.
        #expect(throws: LeaseLost.self) {
            try library.completeJob(stale) { db in try db.execute("DELETE FROM asset WHERE id = \(a)") }
        }
        #expect(try library.describe([a]).count == 1)
        #expect(try library.failJob(stale, error: "late") == nil)
        try library.completeJob(fresh)
        #expect(try library.job(fresh.job.id)?.state == .done)
        // Done; why its first attempt ended is kept.
        #expect(try library.job(fresh.job.id)?.lastError?.contains("stopped renewing its lease") == true)
    }

    @Test(arguments: CatalogBackend.allCases) func aFailingJobIsTriedAgainAfterABackoffThenFailsWithItsError(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let a = assets[0]
        let id = try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)])[0]
        for attempt in 1...3 {
            let lease = try #require(try library.claimJob(worker: me), "attempt \(attempt)")
            #expect(lease.job.attempt == attempt)
            let state = try library.failJob(lease, error: "preview of asset \(a) (x.HEIC): cannot decode")
            #expect(state == (attempt < 3 ? .available : .failed))
            if attempt < 3 {
                // Not before its backoff.
                #expect(try library.claimJob(worker: me) == nil)
                // (The catalog's clock keeps milliseconds, rounded: a read within one of
                // the failure may find a hair more than the backoff.)
                let wait = try #require(try library.secondsUntilJob())
                #expect(wait > 0 && wait <= Double(JobRecord.backoff(afterAttempt: attempt)) + 0.01, "\(wait)")
                try f.runAfterNow(id)
            }
        }
        let failed = try #require(try library.job(id))
        #expect(failed.state == .failed && failed.finishedAt != nil)
        #expect(failed.lastError == "preview of asset \(a) (x.HEIC): cannot decode")
        #expect(try library.jobQueueStatus().failed.map(\.id) == [id])
        // Retried: all its attempts again.
        #expect(try library.retryJobs(nil) == [id])
        #expect(try library.claimJob(worker: me)?.job.attempt == 1)
    }

    @Test(arguments: CatalogBackend.allCases) func aJobNotWorthRetryingFailsAtOnceAndAHandedBackOneKeepsItsAttempt(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let (a, b) = (assets[0], assets[1])
        try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)])
        let lease = try #require(try library.claimJob(worker: me))
        #expect(try library.failJob(lease, error: "gone", retry: false) == .failed)

        try library.enqueue([.derived(.preview, asset: b, resource: stills[b]!)])
        let held = try #require(try library.claimJob(worker: me))
        try library.handBackJob(held)
        let again = try #require(try library.claimJob(worker: other))
        #expect(again.job.id == held.job.id && again.job.attempt == 1)
    }

    @Test(arguments: CatalogBackend.allCases) func aCancelledRunningJobRecordsNothing(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let a = assets[0]
        try library.enqueue([.derived(.thumbnail, asset: a, resource: stills[a]!)])
        let lease = try #require(try library.claimJob(worker: me))
        #expect(try library.cancelJobs([lease.job.id, 999]) == [lease.job.id])
        #expect(throws: LeaseLost.self) { try library.completeJob(lease) }
        #expect(try library.job(lease.job.id)?.state == .cancelled)
    }

    @Test(arguments: CatalogBackend.allCases) func theJobsOfAWorkerThatDiedOnThisHostGoBackAtOnceAndItsFilesGo(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let a = assets[0]
        try library.enqueue([.derived(.preview, asset: a, resource: stills[a]!)])
        // A process that has ended: a child that exited.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = WorkerIdentity(host: "here", pid: gone.processIdentifier)
        let lease = try #require(try library.claimJob(worker: dead))
        // It was killed while it wrote a file, after the library's sweep at open.
        let left = library.root.appendingPathComponent("tmp/\(ProcessInfo.processInfo.hostName)-\(gone.processIdentifier)-\(UUID().uuidString).part")
        try Data([1]).write(to: left)
        #expect(try library.rescueJobs(host: "here") == 1)
        #expect(!FileManager.default.fileExists(atPath: left.path), "the dead worker's file stayed in tmp/")
        let job = try #require(try library.job(lease.job.id))
        #expect(job.state == .available)
        #expect(job.lastError?.contains("preview of asset \(a) (originals/") == true, "\(job.lastError ?? "")")
        #expect(job.lastError?.contains("ended while it ran") == true)
    }

    @Test(arguments: CatalogBackend.allCases) func aThumbnailJobRecordsTheThumbnailAndARenderJobTheEdit(on backend: CatalogBackend) throws {
        let f = try Fixture(backend)
        let (library, stills, assets) = (f.library, f.stills, f.assets)
        let a = assets[0]
        let still = stills[a]!
        // The thumbnail import made goes, as if import had left it to a job.
        try library.catalog.write { db in try db.execute("DELETE FROM resource WHERE role = 'thumbnail' AND derived_from = \(still)") }
        try library.enqueue([
            .derived(.thumbnail, asset: a, resource: still),
            NewJob(kind: .render, asset: a, arguments: RenderJobArguments(steps: [try .init(parsing: "noir")], extending: false).json),
        ])
        let worker = JobWorker(library: library, options: .init(untilIdle: true), identity: me)
        try worker.run()
        #expect(try library.jobQueueStatus().counts == [
            .init(kind: .render, state: .done, jobs: 1), .init(kind: .thumbnail, state: .done, jobs: 1),
        ])
        let description = try library.describe([a])[0]
        let thumbnail = try #require(description.resources.first { $0.role == .thumbnail && $0.of == .photo })
        #expect(FileManager.default.fileExists(atPath: thumbnail.path))
        #expect(description.adjustments.last?.formatIdentifier == "org.camlib.filters")
        #expect(try library.verify(quick: true).sound)
    }
}
