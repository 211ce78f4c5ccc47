import Foundation
import Library

/// A child camlib the gallery runs for work that decodes the library's files (an edit, a
/// browser's copy): without Swift's backtracer, so a crash ends it at once; killed when it
/// outlives its time limit. Standard output (and, when asked, standard error) are pipes
/// for the caller to read; standard input is empty.
final class ChildCamlib {
    /// How the child ended.
    enum Ending {
        case exited(Int32)
        /// Killed by a signal other than the time limit's: its name.
        case crashed(String)
        case timedOut
    }

    let process = Process()
    let output = Pipe()
    let errors: Pipe?
    private let deadline: DispatchTime
    private let watchdog: DispatchWorkItem

    init(executable: String, arguments: [String], timeLimit: TimeInterval, readErrors: Bool) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ChildProcess.environment()
        errors = readErrors ? Pipe() : nil
        process.standardOutput = output
        process.standardError = errors ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        deadline = DispatchTime.now() + timeLimit
        watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
    }

    /// Waits for the child to end (its pipes read to their end first).
    func finish() -> Ending {
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationReason == .uncaughtSignal else { return .exited(process.terminationStatus) }
        let signal = process.terminationStatus
        if signal == SIGKILL, DispatchTime.now() >= deadline { return .timedOut }
        return .crashed(String(cString: strsignal(signal)))
    }
}
