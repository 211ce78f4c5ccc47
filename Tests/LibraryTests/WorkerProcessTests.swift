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

    /// Imports one after another (the gallery's uploads, a watched folder) share workers
    /// that `keeps`: the same processes analyse each import's files. Otherwise each
    /// import's workers end with it.
    @Test(.enabled(if: Media.shouldRun, Media.skipMessage)) func keptWorkersServeTheNextImportAndOthersEndWithTheirs() throws {
        let scratch = try ScratchDirectory()
        // A shell between the import and camlib, under a name no other test's worker has,
        // so that pgrep finds this test's workers alone.
        let wrapper = scratch.file("worker-\(UUID().uuidString.prefix(8))")
        try "#!/bin/sh\n'\(Camlib.path)' \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        func running() throws -> Set<String> {
            Set(try run("/usr/bin/pgrep", ["-f", wrapper]).stdout.split(separator: "\n").map(String.init))
        }
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"))
        let files = try Media.files(in: "orientation")
        let kept = AnalysisWorkers(executable: wrapper, keeps: true)
        var seen: [Set<String>] = []
        for file in files.prefix(3) {
            let report = try Importer(library: library, options: ImportOptions(jobs: 1, isolation: .workerProcesses(kept))).run(paths: [file])
            #expect(report.imported == 1, "\(report.errors)")
            seen.append(try running())
        }
        #expect(seen[0].count == 1 && seen.allSatisfy { $0 == seen[0] }, "one worker for the three imports: \(seen)")
        let once = AnalysisWorkers(executable: wrapper)
        let report = try Importer(library: library, options: ImportOptions(jobs: 1, isolation: .workerProcesses(once))).run(paths: [files[3]])
        #expect(report.imported == 1, "\(report.errors)")
        #expect(try running() == seen[0], "the import's own worker ended with it; the kept one waits")
        withExtendedLifetime(kept) {}
    }

    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
