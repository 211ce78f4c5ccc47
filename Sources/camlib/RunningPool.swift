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
}
