/// Exit statuses beyond ArgumentParser's own (0 success, 1 failure, 64 usage).
enum ExitStatus {
    /// The batch finished, but some files could not be imported.
    static let partialFailure: Int32 = 2
    static let interrupted: Int32 = 130
}
