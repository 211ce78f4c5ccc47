import Foundation

/// Wakes an idle worker as soon as a job is queued in a PostgreSQL catalog: a connection
/// of its own that `LISTEN`s on the queue's channel. A notification is only a hint (a
/// listener whose connection broke misses them), so a worker still polls, less often.
public final class PostgresJobListener: @unchecked Sendable {
    // @unchecked: `pending` is guarded by `condition`; `session` is only held.
    private let session: PostgresSession
    private let condition = NSCondition()
    private var pending = 0

    /// Listens on `location`'s queue channel; `heard` is called (on a connection's
    /// thread) for each notification as well.
    public init(_ location: PostgresLocation, heard: @escaping @Sendable () -> Void = {}) throws {
        session = try PostgresSession(location)
        try session.listen(JobRecord.channel) { [weak self] _ in
            self?.signal()
            heard()
        }
    }

    private func signal() {
        condition.lock()
        pending += 1
        condition.signal()
        condition.unlock()
    }

    /// Waits until a job was queued since the last wait, or `timeout` seconds passed;
    /// true when woken by a notification.
    public func wait(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while pending == 0 {
            if !condition.wait(until: deadline) { return false }
        }
        pending = 0
        return true
    }

    /// Whether its connection has ended (the server restarted, say): it hears nothing more.
    public var isLost: Bool { session.isLost }

    public func close() { session.close() }
}
