import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

/// `camlib worker` and the jobs import queues: killed at any moment, stopped past its
/// lease, a worker never loses a job, never records one twice, and leaves nothing behind.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage), .serialized)
struct WorkerCommandTests {
    static let folders = ["apple-live-photo", "apple-portrait-heic", "orientation"]

    /// A library whose import left its thumbnails to jobs (`--no-wait`), made once and
    /// copied for each test that changes it.
    static let template: Result<URL, any Error> = Result {
        let scratch = try ScratchDirectory.shared("camlib-worker-template")
        let library = scratch.url.appendingPathComponent("library")
        if !FileManager.default.fileExists(atPath: library.appendingPathComponent("catalog.sqlite").path) {
            let result = try Camlib.run(["import", "--library", library.path, "--no-wait"] + folders.map { Media.path($0) })
            guard result.status == 0 else { throw ProcessFailure(result) }
        }
        return library
    }

    struct ProcessFailure: Error, CustomStringConvertible {
        let result: ProcessResult
        init(_ result: ProcessResult) { self.result = result }
        var description: String { "status \(result.status): \(result.stderr)" }
    }

    /// A copy of the template library in `scratch`.
    static func library(in scratch: ScratchDirectory) throws -> String {
        let copy = scratch.file("library")
        let result = try run("cp", ["-a", try template.get().path, copy])
        #expect(result.status == 0, "\(result.stderr)")
        return copy
    }

    static func catalog(_ library: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        return try DatabaseQueue(path: library + "/catalog.sqlite", configuration: config)
    }

    /// Every job done once and every file shown with one thumbnail; tmp/ empty; verify
    /// clean (no file the catalog does not name).
    static func expectEverythingDoneOnce(_ library: String, _ context: Comment? = nil) throws {
        try catalog(library).read { db in
            let states = try Row.fetchAll(db, sql: "SELECT kind, state, count(*) FROM job GROUP BY kind, state").map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE kind = 'thumbnail' AND state <> 'done'") == 0, "\(states) \(context ?? "")")
            // One thumbnail row for each original still and movie that has a job.
            #expect(
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM job j WHERE j.kind = 'thumbnail'
                          AND (SELECT count(*) FROM resource t WHERE t.role = 'thumbnail' AND t.derived_from = j.resource_id) <> 1
                        """) == 0, "\(context ?? "")")
            let rows = try Row.fetchAll(db, sql: "SELECT pid, job_id, started_at, heartbeat_at FROM worker")
            #expect(rows.isEmpty, "a worker's row stayed: \(rows.map { describeWorker($0) }) \(context ?? "")")
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: library + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "tmp/ holds \(leftovers) \(context ?? "")")
        let verify = try Camlib.run(["verify", "--library", library])
        #expect(verify.status == 0 && verify.stdout.contains("The library is sound"), "\(verify.stdout)\(verify.stderr) \(context ?? "")")
    }

    /// A worker row, with what its process is now (its state and command line), for a
    /// failure's message.
    static func describeWorker(_ row: Row) -> String {
        let pid: Int32 = row["pid"]
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap { $0.split(separator: ")").last?.split(separator: " ").first }
        let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\0", with: " ") }
        let now = stat.map { "state \($0): \(command ?? "")" } ?? "no such process"
        return "pid \(pid) (job \(row["job_id"] as Int64?, default: "none"), started \(row["started_at"] as String), heard \(row["heartbeat_at"] as String)): \(now)"
    }

    /// The pids of `camlib worker --child` processes working on `library`.
    static func children(of library: String) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains("--child") && arguments.contains(library) ? pid : nil
        }
    }

    static func start(_ arguments: [String], environment: [String: String] = [:], output: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Camlib.path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func anImportThatDoesNotWaitListsEveryAssetAndAWorkerMakesItsThumbnails() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        let pending = try Self.catalog(library).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE kind = 'thumbnail' AND state = 'available'") ?? 0
        }
        #expect(pending > 5, "the import left no thumbnails to jobs")
        let listed = try Camlib.run(["query", "--library", library, "--json"])
        let assets = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        let imported = try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM asset") }
        #expect(assets?.count == imported, "every asset is listed at once")

        let status = try Camlib.run(["jobs", "--library", library])
        #expect(status.stdout.contains("thumbnail  \(pending)"), "\(status.stdout)")

        let worked = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail", "--json"])
        #expect(worked.status == 0, "\(worked.stderr)")
        let lines = worked.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.filter { $0["event"] as? String == "done" }.count == pending)
        #expect(lines.allSatisfy { $0["kind"] as? String == "thumbnail" })
        try Self.expectEverythingDoneOnce(library)
        // The proxies were not its kind: they wait.
        let after = try Camlib.run(["jobs", "--library", library, "--json"])
        #expect(after.stdout.contains(#""kind" : "proxy""#) && after.stdout.contains(#""state" : "available""#))
    }

    /// `camlib repair --no-wait` queues a job per asset whose files are lost and returns;
    /// `camlib worker` makes them; a plain `camlib repair` runs its jobs and says what each did.
    @Test func aRepairIsJobsThatAWorkerOrTheRepairItselfRuns() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        #expect(try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail"]).status == 0)
        let thumbnails = library + "/derived/thumbnails"
        let count = try FileManager.default.subpathsOfDirectory(atPath: thumbnails).filter { $0.hasSuffix(".jpg") }.count
        try FileManager.default.removeItem(atPath: thumbnails)

        let queued = try Camlib.run(["repair", "--library", library, "--no-wait", "--json"])
        #expect(queued.status == 0, "\(queued.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(queued.stdout.utf8)) as? [String: Any], "\(queued.stdout)")
        let actions = report["actions"] as? [[String: Any]] ?? []
        #expect(!actions.isEmpty && actions.allSatisfy { $0["kind"] as? String == "queued" && $0["job"] is Int }, "\(actions)")
        #expect(report["jobBatch"] is String)
        let listed = try Camlib.run(["jobs", "--library", library])
        #expect(listed.stdout.contains("repair"), "\(listed.stdout)")
        let human = try Camlib.run(["repair", "--library", library, "--no-wait"])
        #expect(human.stdout.contains("left to jobs that `camlib worker` or `camlib serve` runs"), "\(human.stdout)")

        #expect(try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "repair"]).status == 0)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: thumbnails).filter { $0.hasSuffix(".jpg") }.count == count)
        try Self.expectEverythingDoneOnce(library)

        // Waiting: the repair's own workers make them, and it says what each job did.
        try FileManager.default.removeItem(atPath: thumbnails)
        let repaired = try Camlib.run(["repair", "--library", library, "--jobs", "2"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let rebuilt = repaired.stdout.split(separator: "\n").filter { $0.hasPrefix("rebuilt: ") }
        #expect(rebuilt.count == count && repaired.stdout.contains("Mended \(count) things."), "\(repaired.stdout)")
        try Self.expectEverythingDoneOnce(library)
    }

    /// A job whose file is damaged fails with an error naming the asset and the file, and
    /// the other jobs are done all the same; `camlib jobs` lists it.
    @Test func aJobOnADamagedFileFailsNamingItAndTheRestGoOn() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        let (job, asset, path) = try #require(
            try Self.catalog(library).read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT j.id, j.asset_id, r.path FROM job j JOIN resource r ON r.id = j.resource_id
                        WHERE j.kind = 'thumbnail' AND j.state = 'available' AND r.role = 'photo' ORDER BY j.id LIMIT 1
                        """
                ).map { ($0[0] as Int64, $0[1] as Int64, $0[2] as String) }
            }, "no still waits for its thumbnail")
        // Cut to its first kilobyte: the container's start, no picture.
        let file = library + "/" + path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        try bytes.prefix(1024).write(to: URL(fileURLWithPath: file))

        let worked = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail", "--json"])
        let lines = worked.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let ended = lines.filter { ($0["job"] as? Int).map(Int64.init) == job && $0["event"] as? String == "failed" }
        #expect(!ended.isEmpty, "\(worked.stdout)\(worked.stderr)")
        let states = try Self.catalog(library).read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, last_error FROM job WHERE kind = 'thumbnail'").map { ($0[0] as Int64, $0[1] as String, $0[2] as String?) }
        }
        let failed = try #require(states.first { $0.0 == job })
        #expect(failed.1 == "failed", "\(failed)")
        #expect(failed.2?.contains("asset \(asset)") == true && failed.2?.contains(path) == true, "\(failed.2 ?? "")")
        #expect(states.filter { $0.0 != job }.allSatisfy { $0.1 == "done" }, "\(states)")
        let listed = try Camlib.run(["jobs", "--library", library])
        #expect(listed.stdout.contains("job \(job): thumbnail of asset \(asset) (\(path))"), "\(listed.stdout)")
    }

    @Test(arguments: 0..<10) func aWorkerKilledAtAnyMomentLosesNothingAndRepeatsNothing(run: Int) throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        let worker = try Self.start(["worker", "--library", library, "--until-idle", "--jobs", "2", "--kinds", "thumbnail"])
        // A random moment of the first second or so; a child, or on every third run the
        // worker itself, whose children end with it.
        usleep(UInt32.random(in: 20_000...900_000))
        if run % 3 == 2 {
            kill(worker.processIdentifier, SIGKILL)
        } else if let child = Self.children(of: library).randomElement() {
            kill(child, SIGKILL)
        }
        worker.waitUntilExit()
        // A killed worker's children end with it, each within a moment (a busy machine may
        // stretch the moment; a child still ending when the next worker leaves keeps its row).
        let killed = Date()
        while !Self.children(of: library).isEmpty && Date().timeIntervalSince(killed) < 10 { usleep(20_000) }
        #expect(Self.children(of: library).isEmpty, "the killed worker's children \(Self.children(of: library)) outlived it by 10 s")
        // Whatever was left: the next worker takes it over at once (its holders are gone).
        let rest = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail"])
        #expect(rest.status == 0, "\(rest.stderr)")
        try Self.expectEverythingDoneOnce(library, "run \(run)")
    }

    /// A child that starts after its parent was killed (the parent's pid is in its
    /// environment, no longer its parent's) ends at once: it claims nothing and leaves no
    /// worker row. Then a worker that finds nothing to do still clears a killed worker's row.
    @Test func aChildWhoseParentIsGoneDoesNothingAndAnIdleWorkerClearsTheDeadsRows() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        let pending = { try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE state = 'available'") ?? 0 } }
        let before = try pending()
        let orphan = try Camlib.run(["worker", "--child", "--library", library, "--kinds", "thumbnail", "--until-idle"], environment: ["CAMLIB_PARENT_PID": "999999999"])
        #expect(orphan.status == 0, "\(orphan.stderr)")
        #expect(try pending() == before, "the orphan claimed jobs")
        #expect(try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM worker") } == 0)

        _ = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail"])
        // A worker killed as it starts, on an idle library: its row is all that is left.
        let killed = try Self.start(["worker", "--library", library, "--kinds", "thumbnail"])
        var registered = false
        for _ in 0..<400 where !registered {
            usleep(25_000)
            registered = try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM worker") ?? 0 } > 0
        }
        #expect(registered, "the worker never registered")
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        for child in Self.children(of: library) { kill(child, SIGKILL) }
        usleep(200_000)
        let idle = try Camlib.run(["worker", "--library", library, "--until-idle", "--jobs", "1", "--kinds", "thumbnail"])
        #expect(idle.status == 0, "\(idle.stderr)")
        try Self.expectEverythingDoneOnce(library)
    }

    @Test func aWorkerStoppedPastItsLeaseChangesNothingWhenItGoesOn() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(in: scratch)
        let short = ["CAMLIB_JOB_LEASE_SECONDS": "3"]
        _ = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "thumbnail"])
        // An edit of a Live Photo: seconds of work, still and movie.
        let asset = try Self.catalog(library).read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE kind = 'live' ORDER BY id LIMIT 1")
        }!
        let queued = try Camlib.run(["edit", "--library", library, String(asset), "--filter", "noir", "--queue"])
        #expect(queued.status == 0, "\(queued.stderr)")
        let said = scratch.file("first.jsonl")
        let first = try Self.start(["worker", "--library", library, "--jobs", "1", "--kinds", "render", "--json"], environment: short, output: said)
        defer {
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
        }
        // Stopped as soon as it holds the render.
        var child: Int32?
        for _ in 0..<400 where child == nil {
            usleep(25_000)
            let running = try Self.catalog(library).read { db in try Int32.fetchOne(db, sql: "SELECT pid FROM job WHERE kind = 'render' AND state = 'running'") }
            if let running, Self.children(of: library).contains(running) { child = running }
        }
        let stopped = try #require(child, "no worker took the render")
        try Self.stopOutsideWrites(stopped, library)
        // Past its lease, another worker takes the job over and renders it.
        sleep(4)
        let second = try Camlib.run(["worker", "--library", library, "--until-idle", "--kinds", "render"], environment: short)
        #expect(second.status == 0, "\(second.stderr)")
        let adjustments = { try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM adjustment WHERE asset_id = ?", arguments: [asset]) } }
        #expect(try adjustments() == 1)
        let job = try Self.catalog(library).read { db in try Row.fetchOne(db, sql: "SELECT state, attempt FROM job WHERE kind = 'render'") }
        #expect(job?["state"] == "done" && job?["attempt"] == 2)
        // The first goes on, finishes its render, and records nothing.
        kill(stopped, SIGCONT)
        var lost = false
        for _ in 0..<1200 where !lost {
            usleep(50_000)
            lost = (try? String(contentsOfFile: said, encoding: .utf8))?.contains(#""event":"leaseLost""#) == true
        }
        #expect(lost, "the first worker never finished its render")
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(try adjustments() == 1)
        try Self.expectEverythingDoneOnce(library)
    }

    /// Stops `pid` (SIGSTOP) at a moment when it is not writing to the catalog. Stopped
    /// inside a write, a process keeps SQLite's write lock, and every other writer gives
    /// up after its busy timeout, as it would on a machine where someone pressed Ctrl-Z
    /// on an import; so it goes on and is stopped again until no write is open.
    static func stopOutsideWrites(_ pid: Int32, _ library: String) throws {
        var config = Configuration()
        config.busyMode = .immediateError
        let probe = try DatabaseQueue(path: library + "/catalog.sqlite", configuration: config)
        for _ in 0..<500 {
            kill(pid, SIGSTOP)
            do {
                try probe.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE; ROLLBACK") }
                return
            } catch {}
            kill(pid, SIGCONT)
            usleep(10_000)
        }
        Issue.record("the worker was writing at every try")
    }

    /// An import, two `camlib worker` processes and `camlib serve` with its own workers, at
    /// once on one library: the gallery answers throughout, every job is done once, and
    /// nothing is left behind.
    @Test func anImportTwoWorkersAndTheGalleryAtOnceOnOneLibrary() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("library")
        // The library exists before the others start; the import fills it.
        #expect(try Camlib.run(["import", "--library", library, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: Camlib.path)
        serve.arguments = ["serve", "--library", library, "--port", "0"]
        let out = Pipe()
        serve.standardOutput = out
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer {
            if serve.isRunning {
                kill(serve.processIdentifier, SIGKILL)
                serve.waitUntilExit()
            }
        }
        var said = Data()
        while !said.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said.append(chunk)
        }
        let line = String(decoding: said, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let base = try #require(line.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }, "\(line)")
        let root = String(base.prefix { $0 != "?" }).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let workers = try (0..<2).map { _ in try Self.start(["worker", "--library", library]) }
        defer {
            for w in workers where w.isRunning {
                kill(w.processIdentifier, SIGKILL)
                w.waitUntilExit()
            }
        }
        // The gallery is asked for a page every 200 ms while the import runs.
        let answers = Mutex<[Int]>([])
        let importing = Atomic<Bool>(true)
        let asker = Thread {
            while importing.load(ordering: .relaxed) {
                let status = (try? run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", root + "/api/assets?limit=50"]).stdout) ?? ""
                answers.withLock { $0.append(Int(status) ?? 0) }
                usleep(200_000)
            }
        }
        asker.start()
        let imported = try Camlib.run(["import", "--library", library] + Self.folders.map { Media.path($0) })
        importing.store(false, ordering: .relaxed)
        #expect(imported.status == 0, "\(imported.stderr)")
        // Whatever the import queued beyond its thumbnails (proxies) the workers finish.
        var left = 1
        for _ in 0..<3000 where left > 0 {
            usleep(100_000)
            left = try Self.catalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE state IN ('available', 'running')") } ?? 0
        }
        #expect(left == 0, "jobs still waiting or running")
        for w in workers { kill(w.processIdentifier, SIGTERM) }
        kill(serve.processIdentifier, SIGTERM)
        for w in workers { w.waitUntilExit() }
        serve.waitUntilExit()
        #expect(workers.allSatisfy { $0.terminationReason == .exit && $0.terminationStatus == 0 })
        #expect(serve.terminationReason == .exit && serve.terminationStatus == 0)
        let statuses = answers.withLock { $0 }
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 200 }, "the gallery answered \(statuses)")
        try Self.expectEverythingDoneOnce(library)
        // Each job done once: no file has two thumbnails, no movie two proxies.
        let done = try Self.catalog(library).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE state = 'done' GROUP BY kind, resource_id HAVING count(*) > 1")
        }
        #expect(done == nil, "a job was done twice")
        // Apple's edit of IMG_3582 (an HEVC movie the gallery plays) had its copy made too.
        let editedMovies = try Self.catalog(library).read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM job j JOIN resource r ON r.id = j.resource_id WHERE j.kind = 'proxy' AND r.role = 'renderedVideo'")
        }
        #expect(editedMovies == 1)
    }
}

