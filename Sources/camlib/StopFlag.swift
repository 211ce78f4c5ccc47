import Foundation

/// Set from a signal handler's queue, read by the capture loop.
/// `@unchecked Sendable`: `value` is under `lock`.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
