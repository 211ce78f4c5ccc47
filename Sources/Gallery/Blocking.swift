import Dispatch
import Library
import Synchronization

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

/// Work that makes a file, done once however many requests ask for it at the same time
/// (a page asks for 50 thumbnails at once; two tabs may ask for the same proxy).
actor OnceAtATime<Value: Sendable> {
    private var running: [String: Task<Value, any Error>] = [:]

    func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = running[key] { return try await task.value }
        let task = Task { try await work() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}

/// Which file answers an asset's resource and kind, remembered: a resource's bytes never
/// change (files are named by their sha256), so neither does the answer. Saves the catalog
/// reads of every thumbnail a page shows again. Forgets everything past `capacity`.
final class DisplayFiles: Sendable {
    private let known = Mutex<[String: DisplayFile]>([:])
    private let capacity = 200_000

    func file(_ key: String) -> DisplayFile? {
        known.withLock { $0[key] }
    }

    func remember(_ file: DisplayFile, for key: String) {
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[key] = file
        }
    }
}
