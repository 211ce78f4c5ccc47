import Codecs
import ArgumentParser
import Foundation
import Library
import Synchronization

struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the library's queued jobs: thumbnails, previews, proxies, PNGs, renders.",
        discussion: Help.reflow(
            """
            Work that takes decoding (thumbnails, browsers' previews and H.264 proxies,
            auxiliary images' PNGs, edits' renders) waits as jobs in the catalog until a
            worker runs it. `camlib import` runs the jobs it made before it returns (unless
            --no-wait), and `camlib serve` runs workers beside it; `camlib worker` runs
            them on its own, as many at once as --jobs says, each in a process of its own:
            a file that crashes a decoder costs that job one attempt, and the job is tried
            again, then failed with the asset and the file named (`camlib jobs`).

            A worker holds each job under a lease that it renews while it works; a worker
            that is killed or stopped loses its leases, and another worker takes its jobs
            over. What a worker whose lease was taken over made is not recorded.

            Runs until Ctrl-C or SIGTERM, which let each job running finish; a second one
            stops at once, and the jobs running are taken over by the next worker.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(
        help: ArgumentHelp(
            "Only jobs of these kinds: \(JobKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "kind,..."),
        transform: Self.kinds)
    var kinds: [JobKind] = JobKind.allCases

    @Option(help: ArgumentHelp("Jobs run at once, each in a process of its own (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(name: .customLong("until-idle"), help: "Return once no job of these kinds waits or runs.")
    var untilIdle = false

    @OptionGroup var output: JSONOutput<WorkerCommand>

    /// Internal: runs jobs in this process, one at a time, for a parent worker.
    @Flag(help: .private)
    var child = false

    /// Internal: only the jobs made together as this batch.
    @Option(help: .private)
    var batch: String?

    static func kinds(_ text: String) throws -> [JobKind] {
        try text.split(separator: ",").map { name in
            guard let kind = JobKind(rawValue: String(name)) else {
                throw ValidationError("--kinds: no kind '\(name)'; the kinds are \(JobKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
    }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs \(jobs): give 1 or more") }
        if kinds.isEmpty { throw ValidationError("--kinds: give at least one kind") }
    }

    func run() throws {
        let library = try libraryOptions.open(.write)
        if child { return try runChild(library) }
        let processes = jobs ?? Cores.usable
        let pool = WorkerPool(library: library, options: .init(processes: processes, kinds: kinds, batch: batch, untilIdle: untilIdle))
        let signals = StopSignals { pool.stop() }
        let json = output.json
        if !json {
            Terminal.error("camlib worker: running \(kinds.count == JobKind.allCases.count ? "every kind of job" : kinds.map(\.rawValue).joined(separator: ", ")) in \(library.root.path), \(processes) at a time; Ctrl-C stops.")
        }
        pool.start { event in
            switch event {
            case .line(let line):
                if json {
                    StandardOutput.write(try! Terminal.jsonLine(line) + "\n")
                } else if let text = Self.describe(line) {
                    StandardOutput.write(text + "\n")
                }
            case .crashed(let pid, let signal):
                Terminal.error("camlib worker: a worker (pid \(pid)) crashed (\(signal)); its job will be tried again, and another worker takes its place")
            }
        }
        defer { withExtendedLifetime(signals) {} }
        do {
            try pool.wait()
        } catch {
            Terminal.error("camlib worker: \(error)")
            throw ExitCode.failure
        }
    }

    /// One line for a person, for a job's end.
    static func describe(_ line: WorkerEventLine) -> String? {
        let what = "\(line.kind.noun) of asset \(line.asset)"
        switch line.event {
        case "done":
            return "done: \(what) (job \(line.job), \(String(format: "%.2f", line.seconds ?? 0)) s)"
                + (line.warnings ?? []).map { "\n  warning: \($0.terminalSafe())" }.joined()
        case "failed":
            let then = line.state == .available ? "; it will be tried again" : ""
            return "failed: job \(line.job): \((line.error ?? what).terminalSafe())\(then)"
        case "leaseLost":
            return "lost: job \(line.job), \(what): another worker took it over; nothing of this attempt was recorded"
        default:
            return nil
        }
    }

    /// The child: jobs one at a time in this process, a JSON line for each.
    private func runChild(_ library: PhotoLibrary) throws {
        ChildProcess.exitWithParent()
        ChildProcess.limitMemory()
        let worker = JobWorker(library: library, options: .init(kinds: kinds, batch: batch, untilIdle: untilIdle, enforceTimeLimits: true))
        // The parent says when to stop (SIGTERM); Ctrl-C at a terminal reaches the whole
        // process group, and is the parent's to handle.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let terms = Atomic<Int>(0)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler {
            // A second: at once, the lease left to expire.
            if terms.add(1, ordering: .relaxed).newValue > 1 { _exit(143) }
            worker.stop()
        }
        source.resume()
        try worker.run { event in
            StandardOutput.write(try! Terminal.jsonLine(WorkerEventLine(event)) + "\n")
        }
        source.cancel()
    }
}

extension WorkerCommand: JSONDescribed {
    static let jsonFields = "a line for each job started and ended, {event, job, kind, asset, pid, state, error, warnings, seconds}"
}
