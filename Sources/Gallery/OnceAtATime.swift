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
