import Foundation
import Synchronization
import Library

/// Runs a command's work in a child process, so that a C library that aborts or spins on a
/// hostile file (libheif 1.19.7 asserts on one file of the test corpus) ends with a clear
/// error instead of a crash of camlib itself. `camlib import` has its own worker pool;
/// this is for commands that decode one asset or file the user names (`camlib aux …`,
/// `camlib edit`).
///
/// The child is camlib again, with the same arguments and `CAMLIB_ISOLATED=1`; it shares
/// the terminal, so its output and exit status are the command's.
enum Isolation {
    static let variable = "CAMLIB_ISOLATED"
    /// CPU seconds the child may use before the kernel stops it (SIGXCPU).
    static let cpuSeconds: rlim_t = 120

    /// In the parent: runs the child and exits with its status; returns only in the child.
    /// `cpuSeconds`: what the child may spend (an edit of a long movie takes far more
    /// than reading a file's aux images).
    static func runInChild(describing file: String, cpuSeconds: rlim_t = cpuSeconds) throws {
        if ProcessInfo.processInfo.environment[variable] == "1" {
            var limit = rlimit(rlim_cur: cpuSeconds, rlim_max: cpuSeconds + 5)
            setrlimit(Int32(RLIMIT_CPU.rawValue), &limit)
            // Killed, the parent cannot stop its child: the child sees and follows.
            ChildProcess.exitWithParent()
            return
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = Array(CommandLine.arguments.dropFirst())
        // Without Swift's backtracer: a crash report from the child would bury the one
        // line that matters.
        var environment = ChildProcess.environment()
        environment[variable] = "1"
        child.environment = environment
        try child.run()
        // Ctrl-C or SIGTERM: the child is told (SIGTERM) and ends as it sees fit (an edit
        // hands its job back); this process waits for it and ends as it did.
        let stopped = Atomic<Bool>(false)
        let signals = StopSignals { [pid = child.processIdentifier] in
            stopped.store(true, ordering: .relaxed)
            kill(pid, SIGTERM)
        }
        child.waitUntilExit()
        withExtendedLifetime(signals) {}
        if child.terminationReason == .uncaughtSignal, stopped.load(ordering: .relaxed) { exit(ExitStatus.interrupted) }
        if child.terminationReason == .uncaughtSignal {
            let signal = child.terminationStatus
            if signal == SIGXCPU {
                Terminal.error("camlib: \(file): working on it took more than \(cpuSeconds) s of CPU; camlib stopped")
            } else {
                Terminal.error(
                    "camlib: \(file): a C library (libheif, libturbojpeg, FFmpeg…) crashed reading this file (signal \(signal), \(String(cString: strsignal(signal)))); camlib stopped, and only files it had finished are in place")
            }
            exit(1)
        }
        exit(child.terminationStatus)
    }
}
