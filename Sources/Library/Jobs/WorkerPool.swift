import Codecs
import Foundation
import Synchronization

/// Runs jobs in child processes (`camlib worker --child`), each running one job at a
/// time: a file that crashes a decoder or exhausts memory ends that child, and the job it
/// held is tried again (or failed after its last attempt, naming the asset and the file)
/// while the other children go on and a new child takes the dead one's place. `camlib
/// worker`, `camlib import` (for the jobs it made) and `camlib serve` run one.
public final class WorkerPool: Sendable {
    public struct Options: Sendable {
        /// Children at once.
        public var processes: Int
        public var kinds: [JobKind]
        public var batch: String?
        /// Children return once no job of their kinds (and batch) waits or runs.
        public var untilIdle: Bool

        public init(processes: Int = Cores.usable, kinds: [JobKind] = JobKind.allCases, batch: String? = nil, untilIdle: Bool = false) {
            self.processes = max(1, processes)
            self.kinds = kinds
            self.batch = batch
            self.untilIdle = untilIdle
        }
    }

    /// What a child did, as its JSON line says (``WorkerEventLine``), or that it died.
    public enum Event: Sendable {
        case line(WorkerEventLine)
        /// A child died of a signal while running `job` (when it held one).
        case crashed(pid: Int32, signal: String)
    }

    public let library: PhotoLibrary
    public let executable: String
    public let options: Options
    private let children = Mutex<[Int32: Process]>([:])
    private let stopping = Atomic<Int>(0)
    private let group = DispatchGroup()
    private let failure = Mutex<String?>(nil)

    public init(library: PhotoLibrary, executable: String, options: Options) {
        self.library = library
        self.executable = executable
        self.options = options
    }

    /// Starts the children; ``wait()`` waits for them.
    public func start(events: @escaping @Sendable (Event) -> Void = { _ in }) {
        for _ in 0..<options.processes {
            group.enter()
            let thread = Thread { [self] in
                keepRunning(events: events)
                group.leave()
            }
            thread.name = "camlib.worker-pool"
            thread.start()
        }
    }

    /// Waits until every child has returned (with `untilIdle`, once the work is done; else
    /// once stopped). Throws when children could not be started or kept running.
    public func wait() throws {
        group.wait()
        if let failure = failure.withLock({ $0 }) { throw Failure(description: failure) }
    }

    /// Why the pool could not run: its children could not be started or kept running.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// First call: each child finishes the job it runs, then ends. Second: the children
    /// are killed at once, their leases left to expire (or to the next worker on this
    /// host, which sees their processes gone).
    public func stop() {
        let time = stopping.add(1, ordering: .relaxed).newValue
        let pids = children.withLock { Array($0.keys) }
        for pid in pids { kill(pid, time == 1 ? SIGTERM : SIGKILL) }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) > 0 }

    /// Whether ``stop()`` was called.
    public var wasStopped: Bool { isStopping }

    /// One slot: a child, and a new one each time it dies, until stopped or idle.
    private func keepRunning(events: @escaping @Sendable (Event) -> Void) {
        var quickDeaths = 0
        while !isStopping {
            let started = Date()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            var arguments = ["worker", "--child", "--library", library.root.path, "--kinds", options.kinds.map(\.rawValue).joined(separator: ",")]
            if let batch = options.batch { arguments += ["--batch", batch] }
            if options.untilIdle { arguments.append("--until-idle") }
            process.arguments = arguments
            process.environment = ChildProcess.environment()
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                failure.withLock { $0 = "cannot start a worker (\(executable)): \(error)" }
                return
            }
            let pid = process.processIdentifier
            children.withLock { $0[pid] = process }
            if isStopping { kill(pid, SIGTERM) }
            // Its words on standard error, for a child that cannot run at all.
            let said = Mutex(Data())
            let errorReader = Thread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                said.withLock { $0 = data }
            }
            errorReader.start()
            var pending = Data()
            let reader = output.fileHandleForReading
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex..<newline]
                    pending.removeSubrange(pending.startIndex...newline)
                    if let event = try? JSONDecoder().decode(WorkerEventLine.self, from: line) { events(.line(event)) }
                }
            }
            process.waitUntilExit()
            children.withLock { $0[pid] = nil }
            if process.terminationReason == .uncaughtSignal {
                let name = String(cString: strsignal(process.terminationStatus))
                let identity = WorkerIdentity(host: WorkerIdentity.current.host, pid: pid)
                // Killed at the second stop: the lease is left to expire.
                if stopping.load(ordering: .relaxed) < 2 {
                    try? library.rescueJobs(of: identity, cause: "crashed (\(name)) while it ran this")
                    events(.crashed(pid: pid, signal: name))
                }
            } else if process.terminationStatus == 0 {
                if options.untilIdle || isStopping { return }
            } else if process.terminationStatus == JobWorker.timeLimitStatus {
                // It failed a job that outran its time limit, and ended: another takes its place.
            } else {
                // Exited with an error: it could not open the library, say. Again at once
                // would do the same.
                let words = String(decoding: said.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                failure.withLock { $0 = words.isEmpty ? "a worker ended with status \(process.terminationStatus)" : words }
                return
            }
            // A child that dies at once, again and again, is not helped by another.
            quickDeaths = Date().timeIntervalSince(started) < 1 ? quickDeaths + 1 : 0
            if quickDeaths >= 5 {
                failure.withLock { $0 = "workers keep dying as they start; the jobs wait for the next worker" }
                return
            }
            if quickDeaths > 0 { Thread.sleep(forTimeInterval: 0.2 * Double(quickDeaths)) }
        }
    }
}

/// One line a child worker prints on its standard output for each job it starts and
/// ends, as JSON; what `camlib worker --json` prints.
public struct WorkerEventLine: Codable, Sendable, Equatable {
    /// started, done, failed or leaseLost.
    public var event: String
    public var job: Int64
    public var kind: JobKind
    public var asset: Int64
    public var pid: Int32
    /// For failed: the job's state after it (available to be tried again, or failed).
    public var state: JobState?
    public var error: String?
    public var warnings: [String]?
    public var seconds: Double?

    public init(_ event: JobWorker.Event, pid: Int32 = getpid()) {
        switch event {
        case .started(let job):
            (self.event, self.job, kind, asset) = ("started", job.id, job.kind, job.asset)
        case .done(let job, let warnings, let seconds):
            (self.event, self.job, kind, asset) = ("done", job.id, job.kind, job.asset)
            self.warnings = warnings.isEmpty ? nil : warnings
            self.seconds = (seconds * 1000).rounded() / 1000
        case .failed(let job, let message, let state):
            (self.event, self.job, kind, asset) = ("failed", job.id, job.kind, job.asset)
            (self.error, self.state) = (message, state)
        case .leaseLost(let job):
            (self.event, self.job, kind, asset) = ("leaseLost", job.id, job.kind, job.asset)
        }
        self.pid = pid
    }
}
