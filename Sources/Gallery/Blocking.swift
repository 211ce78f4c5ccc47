import Dispatch

/// Runs blocking work (SQLite reads, decoding, encoding) on Dispatch's threads, not on
/// Swift concurrency's few cooperative ones that also serve every request.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
