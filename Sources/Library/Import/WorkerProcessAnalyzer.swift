import Foundation

/// The parent side of one worker process. Restarts the worker after a crash or a
/// time-out; each costs only the file being analysed.
/// `@unchecked Sendable`: used by one thread at a time, handed from the thread that
/// started it to the analysis thread through ``AnalysisWorkers``' lock.
final class WorkerProcessAnalyzer: Analyzer, @unchecked Sendable {
    let executable: String
    private var process: Process?
    private var toWorker: FileHandle?
    private var fromWorker: Int32 = -1
    private var buffered: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    /// Files it was asked to analyse, over every process it started.
    private(set) var analysed = 0

    init(executable: String) {
        self.executable = executable
    }

    deinit { stop() }

    /// `timeLimit` is CPU time the worker may spend on the file, so a busy machine does
    /// not make a slow-but-working decode look like a hang; a wall-clock limit ten times
    /// longer catches a worker stuck without using the CPU.
    func analyze(path: String, stagingDirectory: URL, catalogPath: String, timeLimit: Double, decodePictures: Bool) -> AnalysisOutcome {
        analysed += 1
        do {
            try startIfNeeded()
        } catch {
            return .failed(path: path, reason: "cannot start an analysis worker (\(executable)): \(error)")
        }
        var line = (try? encoder.encode(AnalysisRequest(path: path, stagingDirectory: stagingDirectory.path, catalogPath: catalogPath, decodePictures: decodePictures))) ?? Data()
        line.append(UInt8(ascii: "\n"))
        do {
            try toWorker?.write(contentsOf: line)
        } catch {
            return .failed(path: path, reason: "the analysis worker died: \(reapDescription())")
        }
        // The worker says each step before it starts it; the last one is where it was.
        var step: String?
        let cpuAtStart = process.flatMap { Self.cpuSeconds(of: $0.processIdentifier) }
        let wallDeadline = Date().addingTimeInterval(max(60, timeLimit * 10))
        while true {
            switch readLine(cpuAtStart: cpuAtStart, cpuLimit: timeLimit, wallDeadline: wallDeadline) {
            case .line(let bytes):
                if let next = AnalysisStep.parse(bytes) {
                    step = next
                    continue
                }
                if let outcome = try? decoder.decode(AnalysisOutcome.self, from: Data(bytes)) { return outcome }
                return .failed(path: path, reason: "camlib internal error: unreadable answer from the analysis worker")
            case .closed:
                let doing = step.map { "while \($0)" } ?? "before it began"
                return .failed(path: path, reason: "the analysis crashed \(doing) (\(reapDescription())); camlib skipped this file")
            case .timedOut(let cpu):
                kill()
                let doing = step.map { " (\($0))" } ?? ""
                return .failed(
                    path: path,
                    reason: cpu
                        ? "reading this file used more than \(Int(timeLimit)) s of CPU time without finishing\(doing); camlib gave up on it"
                        : "reading this file made no progress for \(Int(max(60, timeLimit * 10))) s\(doing); camlib gave up on it")
            }
        }
    }

    /// Closes the worker's input, which ends it, and waits for it: a few seconds, then it
    /// is killed (a worker stuck on its way out must not hold up the import).
    func stop() {
        try? toWorker?.close()
        toWorker = nil
        if let p = process { Self.reap(p, killingAfter: 5) }
        closeReader()
        process = nil
    }

    /// Waits for `p` to end, killing it if it has not after `seconds` (at once for 0):
    /// unlike `waitUntilExit()`, never for ever.
    static func reap(_ p: Process, killingAfter seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning {
            if Date() > deadline {
                Foundation.kill(p.processIdentifier, SIGKILL)
                while p.isRunning { usleep(2_000) }
                return
            }
            usleep(1_000)
        }
    }

    /// Starts the worker now, if it is not running.
    func startIfNeeded() throws {
        if let p = process, p.isRunning { return }
        closeReader()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = ["analyze-worker"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        // camlib reports a worker's crash itself, one line per file; Swift's backtracer
        // would spend 0.1 s symbolicating a report that nobody reads.
        var environment = ChildProcess.environment()
        // Decoding allocates tens of MB per image. glibc gives each thread that
        // allocates (libheif's and FFmpeg's decoding threads) an arena of its own, and each
        // arena kept its largest image's worth. One arena, large buffers (4 MB and up)
        // mapped and unmapped for each image, smaller ones kept for the next file (trim at
        // 512 MB): the import's memory falls by about two fifths, in the same time.
        environment["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=4194304:glibc.malloc.trim_threshold=536870912"
        p.environment = environment
        try p.run()
        process = p
        toWorker = input.fileHandleForWriting
        // Own the read end as a plain descriptor, to poll() it with a deadline.
        fromWorker = dup(output.fileHandleForReading.fileDescriptor)
        try? output.fileHandleForReading.close()
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        buffered = []
    }

    private enum ReadResult { case line([UInt8]), closed, timedOut(cpu: Bool) }

    /// The next line from the worker. The CPU time it has used since `cpuAtStart` is
    /// checked whenever it has been silent for 100 ms (a worker busy on a file says
    /// nothing while it works), not on every line: reading /proc costs.
    private func readLine(cpuAtStart: Double?, cpuLimit: Double, wallDeadline: Date) -> ReadResult {
        let pid = process?.processIdentifier ?? 0
        while true {
            if let nl = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffered[..<nl])
                buffered.removeSubrange(...nl)
                return .line(line)
            }
            var fds = pollfd(fd: fromWorker, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if ready == 0 {
                if let start = cpuAtStart, let now = Self.cpuSeconds(of: pid), now - start > cpuLimit { return .timedOut(cpu: true) }
                if Date() > wallDeadline { return .timedOut(cpu: false) }
                continue
            }
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fromWorker, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if n == 0 { return .closed }
            buffered.append(contentsOf: chunk[..<n])
        }
    }

    /// User + system CPU time of a process, from /proc/PID/stat (fields 14 and 15, in
    /// clock ticks; the command name in field 2 may hold spaces, so count after its ')').
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ')': state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func kill() {
        if let p = process { Self.reap(p, killingAfter: 0) }
        try? toWorker?.close()
        toWorker = nil
        closeReader()
        process = nil
    }

    /// Waits for a dead worker and says how it ended.
    private func reapDescription() -> String {
        guard let p = process else { return "worker not running" }
        try? toWorker?.close()
        toWorker = nil
        Self.reap(p, killingAfter: 5)
        closeReader()
        process = nil
        switch p.terminationReason {
        case .uncaughtSignal:
            let sig = p.terminationStatus
            let name = strsignal(sig).map { String(cString: $0) } ?? "signal \(sig)"
            return "signal \(sig), \(name)"
        case .exit:
            return "exit status \(p.terminationStatus)"
        @unknown default:
            return "ended"
        }
    }

    private func closeReader() {
        if fromWorker >= 0 { close(fromWorker) }
        fromWorker = -1
        buffered = []
    }
}
