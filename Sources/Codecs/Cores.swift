import Foundation

/// The cores this process may run on: its CPU affinity (`taskset`, a cgroup's cpuset),
/// which `ProcessInfo.activeProcessorCount` does not read on Linux. Worker counts and
/// encoder threads follow it, so a worker held to one core stays on it.
public enum Cores {
    /// How many cores this process may run on (at least 1): the kernel's
    /// `Cpus_allowed_list` ("0-3,8"), as sched_getaffinity(2) gives it (which Swift's
    /// Glibc module does not import).
    public static var usable: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return online }
        var count = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces).split(separator: ",") {
            let ends = range.split(separator: "-").compactMap { Int($0) }
            guard let first = ends.first else { return online }
            count += (ends.last ?? first) - first + 1
        }
        return max(1, min(count, online))
    }

    /// The machine's online cores.
    public static var online: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Whether this process is held to fewer cores than the machine has.
    public static var isRestricted: Bool { usable < online }

    /// x265's threading for this process, as `name=value` pairs. x265's thread pools set
    /// their threads' affinity to every core of the NUMA node, escaping `taskset`: a
    /// process held to some cores encodes with no pool and a frame thread per core it may
    /// use; otherwise x265 chooses.
    public static var x265Threading: [(name: String, value: String)] {
        guard isRestricted else { return [] }
        return [("pools", "none"), ("frame-threads", String(usable))]
    }
}
