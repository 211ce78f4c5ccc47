import Foundation

/// What a camlib process started by another camlib to do risky work (analyse or render
/// untrusted files) does first, so that nothing it meets outlives or outgrows it.
public enum ChildProcess {
    /// Names the variable that tells a child its parent's pid.
    static let parentVariable = "CAMLIB_PARENT_PID"

    /// The environment for a camlib child: this one's, with this process's pid (a child
    /// that starts after its parent was killed sees it gone at once) and without Swift's
    /// backtracer (a crash ends the child at once; the parent says what it was doing).
    public static func environment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment[parentVariable] = String(getpid())
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return environment
    }

    /// A child whose parent was killed (SIGKILL leaves no chance to stop it) would finish
    /// its work and leave files in tmp/ that no one commits. It checks every 50 ms whether
    /// it was re-parented, or the camlib that started it (`CAMLIB_PARENT_PID`) has ended,
    /// and exits at once if so: also when that happened before it started. (prctl's
    /// PR_SET_PDEATHSIG would do the first, but prctl is variadic and Swift cannot call it.)
    public static func exitWithParent() {
        let parent = getppid()
        // The camlib that started it, which may be further up (a wrapper script between).
        let starter = ProcessInfo.processInfo.environment[parentVariable].flatMap { Int32($0) }
        unsetenv(parentVariable)  // not for this child's own children, unless it says so
        let gone: @Sendable () -> Bool = { getppid() != parent || starter.map { kill($0, 0) != 0 && errno == ESRCH } == true }
        if gone() { _exit(0) }
        let watchdog = Thread {
            while !gone() { usleep(50_000) }
            _exit(0)
        }
        watchdog.start()
    }

    /// A decompression bomb should fail in the child, not take the machine's memory.
    public static func limitMemory(bytes: Int = 8 << 30) {
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        _ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
    }
}
