import Foundation
import Synchronization

/// Runs jobs in this process, one at a time, until stopped (or, `untilIdle`, until none of
/// its kinds waits or runs): claims the next, renews its lease from a thread of its own
/// (so a long render cannot starve it), does the work and records it, fenced by the
/// lease. `camlib worker` runs one in each of its child processes.
public final class JobWorker: Sendable {
    public struct Options: Sendable {
        public var kinds: [JobKind]
        /// Only jobs made together as this batch.
        public var batch: String?
        /// Returns once no job of its kinds (and batch) waits or runs.
        public var untilIdle: Bool
        /// How often an idle worker looks for work.
        public var pollInterval: TimeInterval
        /// Ends the process (exit status ``JobWorker/timeLimitStatus``) when a job runs
        /// longer than its kind's ``timeLimit(_:)``, failing the job first: a decoder that
        /// loops on a hostile file would hold the worker, its lease renewed, for ever. For
        /// a worker in a process of its own.
        public var enforceTimeLimits: Bool

        public init(
            kinds: [JobKind] = JobKind.allCases, batch: String? = nil, untilIdle: Bool = false, pollInterval: TimeInterval = 0.1,
            enforceTimeLimits: Bool = false
        ) {
            self.kinds = kinds
            self.batch = batch
            self.untilIdle = untilIdle
            self.pollInterval = pollInterval
            self.enforceTimeLimits = enforceTimeLimits
        }
    }

    /// Seconds a job of `kind` may run: a thumbnail, preview or PNG takes well under one,
    /// a proxy a few seconds for a Live Photo and minutes for a long video, a render of a
    /// 200-megapixel still about a minute and of a long 4K video far more (a repair may render
    /// an edit again).
    public static func timeLimit(_ kind: JobKind) -> TimeInterval {
        switch kind {
        case .thumbnail, .preview, .auxPNG, .place: 120
        case .proxy: 1800
        case .render, .repair: 4 * 3600
        }
    }

    /// How often an idle worker that listens for PostgreSQL's notifications looks for work
    /// all the same.
    public static let listeningPollInterval: TimeInterval = 2

    /// The exit status of a worker process that ended a job past its time limit.
    public static let timeLimitStatus: Int32 = 75

    /// What the worker did, as it did it.
    public enum Event: Sendable {
        case started(Job)
        case done(Job, warnings: [String], seconds: Double)
        /// The attempt failed; the job is left `state` (available again, or failed).
        case failed(Job, message: String, state: JobState?)
        /// The lease was lost while the job ran: nothing of its work was recorded.
        case leaseLost(Job)
    }

    public let library: PhotoLibrary
    public let options: Options
    public let identity: WorkerIdentity
    private let stopping = Atomic<Bool>(false)
    private let current = Mutex<JobLease?>(nil)
    private let currentStarted = Mutex<Date>(.distantFuture)
    private let leaseKept = Atomic<Bool>(true)
    private let wake = DispatchSemaphore(value: 0)

    public init(library: PhotoLibrary, options: Options = Options(), identity: WorkerIdentity = .current) {
        self.library = library
        self.options = options
        self.identity = identity
    }

    /// Finishes the job running now, then returns from ``run(events:progress:)``.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wake.signal()
    }

    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// The job running now, if any.
    public var runningJob: JobLease? { current.withLock { $0 } }

    /// Runs jobs until stopped, or until idle with `untilIdle`. `progress` hears how far
    /// the running job is, as it records it (a render's `{"phase", "framesDone", …}`),
    /// each time it says so; the catalog gets it at most twice a second.
    public func run(
        events: @escaping @Sendable (Event) -> Void = { _ in }, progress: @escaping @Sendable (Job, String) -> Void = { _, _ in }
    ) throws {
        try library.registerWorker(identity, kinds: options.kinds)
        defer { try? library.unregisterWorker(identity) }
        let heartbeat = Heartbeat(worker: self)
        defer { heartbeat.stop() }
        // On PostgreSQL, a job queued on any machine wakes this worker at once; polling
        // stays, slower, as a listener whose connection broke misses notifications until
        // it listens again.
        let wake = self.wake
        let location = library.catalog.postgresLocation
        var listener = try location.map { try PostgresJobListener($0, heard: { wake.signal() }) }
        defer { listener?.close() }
        let pollInterval = listener == nil ? options.pollInterval : max(options.pollInterval, Self.listeningPollInterval)
        var lastRescue = Date.distantPast
        var idleRescued = false
        var failures = 0
        while !isStopping {
            do {
                if let location, listener?.isLost == true {
                    listener?.close()
                    listener = try PostgresJobListener(location, heard: { wake.signal() })
                }
                if Date().timeIntervalSince(lastRescue) > 5 {
                    try library.rescueJobs(host: identity.host)
                    lastRescue = Date()
                }
                // Read first (a read never waits for a writer): claim only when a job waits.
                let wait = try library.secondsUntilJob(kinds: options.kinds, batch: options.batch)
                if wait == 0, let lease = try library.claimJob(kinds: options.kinds, batch: options.batch, worker: identity) {
                    failures = 0
                    run(lease, events: events, progress: progress)
                    continue
                }
                if options.untilIdle, try !library.hasJobs(kinds: options.kinds, batch: options.batch) {
                    // Idle: one more rescue before leaving, so that a worker killed just
                    // before this one started, still ending then, leaves no row or job.
                    if idleRescued { break }
                    try library.rescueJobs(host: identity.host)
                    lastRescue = Date()
                    idleRescued = true
                    continue
                }
                idleRescued = false
                failures = 0
                _ = wake.wait(timeout: .now() + min(pollInterval, max(0.01, wait ?? pollInterval)))
            } catch {
                // The catalog busy past its timeout, a disk full for a moment: the queue is
                // asked again shortly; a catalog that stays unusable ends the worker.
                failures += 1
                if failures >= 10 { throw error }
                _ = wake.wait(timeout: .now() + Double(failures))
            }
        }
    }

    private func run(_ lease: JobLease, events: @Sendable (Event) -> Void, progress told: @escaping @Sendable (Job, String) -> Void) {
        current.withLock { $0 = lease }
        currentStarted.withLock { $0 = Date() }
        leaseKept.store(true, ordering: .relaxed)
        defer { current.withLock { $0 = nil } }
        _ = try? library.renewLeases([lease], worker: identity)
        events(.started(lease.job))
        let started = Date()
        let lastReport = Mutex(Date.distantPast)
        do {
            let warnings = try library.runJob(lease) { [library] progress in
                told(lease.job, progress)
                // At most twice a second: each is a write.
                let due = lastReport.withLock { last in
                    guard Date().timeIntervalSince(last) >= 0.5 else { return false }
                    last = Date()
                    return true
                }
                if due { _ = try? library.reportProgress(lease, progress) }
            }
            events(.done(lease.job, warnings: warnings, seconds: Date().timeIntervalSince(started)))
        } catch let failure as JobFailure where failure.leaseLost || !leaseKept.load(ordering: .relaxed) {
            events(.leaseLost(lease.job))
        } catch let failure as JobFailure {
            let state = try? library.failJob(lease, error: failure.message, retry: failure.retry)
            events(.failed(lease.job, message: failure.message, state: state ?? nil))
        } catch {
            let message = "\(lease.job.kind.noun) of asset \(lease.job.asset): \(error)"
            let state = try? library.failJob(lease, error: message)
            events(.failed(lease.job, message: message, state: state ?? nil))
        }
    }

    /// Fails the running job when it has outrun its time limit, and ends the process.
    fileprivate func enforceTimeLimit() {
        guard options.enforceTimeLimits, let lease = runningJob else { return }
        let limit = Self.timeLimit(lease.job.kind)
        guard Date().timeIntervalSince(currentStarted.withLock { $0 }) > limit else { return }
        let what = "\(lease.job.kind.noun) of asset \(lease.job.asset)"
        _ = try? library.failJob(lease, error: "\(what): it took longer than \(Int(limit)) seconds and was stopped", retry: false)
        _exit(Self.timeLimitStatus)
    }

    /// Renews the running job's lease every third of its length, and says the worker
    /// is alive when it is idle; checks the running job's time limit every second.
    private final class Heartbeat: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let finished = DispatchSemaphore(value: 0)

        init(worker: JobWorker) {
            let interval = Double(PhotoLibrary.leaseSeconds) / 3
            let thread = Thread { [done, finished] in
                var lastRenewal = Date()
                while done.wait(timeout: .now() + 1) == .timedOut {
                    worker.enforceTimeLimit()
                    guard Date().timeIntervalSince(lastRenewal) >= interval else { continue }
                    lastRenewal = Date()
                    let lease = worker.runningJob
                    if let held = try? worker.library.renewLeases(lease.map { [$0] } ?? [], worker: worker.identity), let lease,
                        !held.contains(lease.token)
                    {
                        worker.leaseKept.store(false, ordering: .relaxed)
                    }
                }
                finished.signal()
            }
            thread.name = "camlib.job-heartbeat"
            thread.start()
        }

        func stop() {
            done.signal()
            finished.wait()
        }
    }
}
