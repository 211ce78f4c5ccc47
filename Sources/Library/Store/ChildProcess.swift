import Foundation

/// What a camlib process started by another camlib to do risky work (analyse or render
/// untrusted files) does first, so that nothing it meets outlives or outgrows it.
public enum ChildProcess {
    /// A child whose parent was killed (SIGKILL leaves no chance to stop it) would finish
    /// its work and leave files in tmp/ that no one commits. It checks every 50 ms whether
    /// it was re-parented and exits at once if so. (prctl's PR_SET_PDEATHSIG would do
    /// this, but prctl is variadic and Swift cannot call it.)
    public static func exitWithParent() {
        let parent = getppid()
        let watchdog = Thread {
            while getppid() == parent { usleep(50_000) }
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
