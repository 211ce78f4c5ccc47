import Foundation
import Testing
import TestSupport

@testable import Library

/// The import's side of an analysis worker (`WorkerProcessAnalyzer`).
struct WorkerProcessTests {
    /// A worker that does not end when its input closes (stuck in a library's exit
    /// handler, say) is killed after a few seconds; stopping it neither hangs nor spins.
    @Test func aWorkerThatWillNotEndIsKilled() throws {
        let scratch = try ScratchDirectory()
        let script = scratch.url.appendingPathComponent("stuck-worker")
        try "#!/bin/sh\ncat > /dev/null\nexec sleep 600\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let worker = WorkerProcessAnalyzer(executable: script.path)
        try worker.startIfNeeded()
        let started = Date()
        let cpuBefore = Self.threadCPUSeconds()
        worker.stop()
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 4 && waited < 30, "stop() returned after \(waited) s")
        // Waiting is sleeping: well under a second of this thread's CPU for five seconds.
        #expect(Self.threadCPUSeconds() - cpuBefore < 1, "stop() spun while it waited")
        let left = try run("pgrep", ["-f", script.path])
        #expect(left.stdout.isEmpty, "still running: \(left.stdout)")
    }

    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
