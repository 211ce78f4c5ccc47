import Foundation
import Library
import Synchronization

/// The worker pool an import runs, for Ctrl-C to stop: set before its children start, so
/// a stop never falls between the two.
final class RunningPool: Sendable {
    private let pool = Mutex<WorkerPool?>(nil)
    private let stopped = Atomic<Bool>(false)

    func run(_ workers: WorkerPool, events: @escaping @Sendable (WorkerPool.Event) -> Void) {
        pool.withLock { $0 = workers }
        workers.start(events: events)
        if stopped.load(ordering: .relaxed), !workers.wasStopped { workers.stop() }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        pool.withLock { $0 }?.stop()
    }

    /// Runs `workers` until their batch is done, with a progress bar over its `total` jobs
    /// (counted from the children's lines: a query per job would cost a read each); true
    /// when stopped (Ctrl-C), which leaves the rest queued. `what` names the jobs for the
    /// message when the workers cannot run.
    func runToTheEnd(_ workers: WorkerPool, total: Int, unit: String, what: String) -> Bool {
        let finished = Atomic<Int>(0)
        run(workers) { event in
            guard case .line(let line) = event, line.event == "done" || line.event == "failed" && line.state != .available else { return }
            finished.add(1, ordering: .relaxed)
        }
        let waited = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Thread.detachNewThread {
            do { try workers.wait() } catch { failure.withLock { $0 = error } }
            waited.signal()
        }
        let bar = ProgressBar(unit: unit)
        while waited.wait(timeout: .now() + 0.1) == .timedOut {
            bar.update(done: min(finished.load(ordering: .relaxed), total), total: total, item: "")
        }
        bar.finish()
        if let error = failure.withLock({ $0 }) { Terminal.error("camlib: \(what) wait for `camlib worker`: \(error)") }
        return workers.wasStopped
    }
}
