import ArgumentParser

/// A capture that could not start: the message goes to stderr as it is (without
/// ArgumentParser's "Error:" prefix) and camlib exits 1.
enum CaptureStartFailure {
    static func report(_ message: String) -> ExitCode {
        Terminal.error(message)
        return ExitCode.failure
    }
}
