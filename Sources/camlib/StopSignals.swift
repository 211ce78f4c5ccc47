import Foundation

/// Ctrl-C and SIGTERM as a request to stop: `handler` runs (on a global queue) instead of
/// the process dying, so the command can finish what it started. Keep the value alive
/// while the handling should last.
final class StopSignals {
    private let sources: [DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}
