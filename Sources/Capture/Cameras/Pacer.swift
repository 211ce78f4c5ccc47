import Glibc

/// Holds a producer to a timeline on the monotonic clock: `wait(until:)` sleeps until
/// that many seconds after `start()`, and returns how late it already was.
struct Pacer {
    private var origin: Double = 0

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    mutating func start() { origin = Self.now() }

    /// The moment of `start()` on the monotonic clock (`now()`'s seconds).
    var startedAt: Double { origin }

    /// Seconds since `start()`.
    var elapsed: Double { Self.now() - origin }

    /// Sleeps until `seconds` after `start()`; returns how many seconds late it was (≥ 0).
    @discardableResult
    func wait(until seconds: Double) -> Double {
        let remaining = seconds - (Self.now() - origin)
        if remaining > 0 {
            var request = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - Double(Int(remaining))) * 1e9))
            var left = timespec()
            while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
            return 0
        }
        return -remaining
    }
}
