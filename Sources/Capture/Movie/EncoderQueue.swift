import Dispatch
import Foundation

/// Encoding work for one recorder, run in order on its own queue so the camera never
/// waits for an encoder. While `maximumBacklog` items wait, or after a failure, new work
/// is refused and counted: the session's signal to lower the frame rate.
/// `@unchecked Sendable`: its counters and first failure are under `lock`; the dispatch queue is thread-safe.
final class EncoderQueue: @unchecked Sendable {
    static let maximumBacklog = 8

    private let queue: DispatchQueue
    private let lock = NSLock()
    private var backlog = 0
    private var firstFailure: Error?
    private var refused = 0

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Work refused so far.
    var dropped: Int { lock.withLock { refused } }
    /// The first error a piece of work threw, if any.
    var failure: Error? { lock.withLock { firstFailure } }

    /// Queues `work`; false when it was refused. An error it throws is kept as `failure`.
    @discardableResult
    func submit(_ work: @escaping @Sendable () throws -> Void) -> Bool {
        let accepted = lock.withLock { () -> Bool in
            guard backlog < Self.maximumBacklog, firstFailure == nil else {
                refused += 1
                return false
            }
            backlog += 1
            return true
        }
        guard accepted else { return false }
        queue.async { [self] in
            defer { lock.withLock { backlog -= 1 } }
            do {
                try work()
            } catch {
                lock.withLock { if firstFailure == nil { firstFailure = error } }
            }
        }
        return true
    }

    /// Queues `work` that is never refused (sound: small, and a gap would be heard); an
    /// error it throws is kept as `failure` like any other.
    func submitAlways(_ work: @escaping @Sendable () throws -> Void) {
        queue.async { [self] in
            do {
                try work()
            } catch {
                lock.withLock { if firstFailure == nil { firstFailure = error } }
            }
        }
    }

    /// Runs `body` on the queue after everything queued before it.
    func async(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    /// Runs `body` on the queue after everything queued before it, and waits for it.
    func sync<T>(_ body: () throws -> T) rethrows -> T { try queue.sync(execute: body) }
}
