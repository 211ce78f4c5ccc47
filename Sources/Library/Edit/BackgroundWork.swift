import Foundation

/// Work started on a thread of its own at once, its result waited for later: a Live Photo's
/// movie renders while its still does, so the decoders, the filter and the two encoders
/// keep every core busy.
/// `@unchecked Sendable`: `result` is written once by its thread before `finished` is signalled, and read only after waiting for it.
final class BackgroundWork<T: Sendable>: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?  // written once, before `finished` is signalled

    init(name: String, _ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            result = Result { try body() }
            finished.signal()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the work; its value, or the error it threw. May be called more than once.
    func value() throws -> T {
        finished.wait()
        defer { finished.signal() }
        return try result!.get()
    }
}
