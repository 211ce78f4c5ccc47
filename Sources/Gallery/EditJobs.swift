import Filters
import Foundation
import Library
import Synchronization

/// Edits started from the page. Each runs in a child camlib (`camlib edit … --json`), the
/// same command and library calls as on the command line, so a file that crashes, hangs
/// or exhausts a decoder ends that edit and never the gallery; the page follows its
/// progress by polling. A few run at a time (each holds a full-size picture, up to
/// 600 MB for a 200-megapixel still); the others wait their turn, and past a queue of
/// ``maximumWaiting`` the gallery says it is busy.
final class EditJobs: Sendable {
    struct State: Encodable, Sendable {
        var job: String
        var asset: Int64
        /// queued, running, done or failed.
        var state: String
        /// still, then movie (a Live Photo's or Motion Photo's frames).
        var phase: String?
        var framesDone: Int?
        var framesExpected: Int?
        var error: String?
        var warnings: [String] = []
        /// When the job started: which finished jobs are forgotten first.
        var started = Date()

        enum CodingKeys: String, CodingKey { case job, asset, state, phase, framesDone, framesExpected, error, warnings }
    }

    /// Why a job was not started.
    enum Refusal: Error {
        case busy(waiting: Int)
    }

    /// The camlib executable the edits run in.
    let executable: String
    let libraryRoot: String
    /// Edits running at once: an edit keeps every core busy on its own.
    let concurrent: Int
    /// Wall-clock time one edit may take before it is stopped (a 200-megapixel comic
    /// takes about a minute here; a file that makes a decoder loop never ends).
    let timeLimit: TimeInterval
    static let maximumWaiting = 32

    private let states = Mutex<[String: State]>([:])
    private let slots: DispatchSemaphore

    init(executable: String, libraryRoot: String, concurrent: Int = 1, timeLimit: TimeInterval = 900) {
        self.executable = executable
        self.libraryRoot = libraryRoot
        self.concurrent = concurrent
        self.timeLimit = timeLimit
        slots = DispatchSemaphore(value: concurrent)
    }

    func start(asset: Int64, steps: [FilterStep], extending: Bool) throws(Refusal) -> State {
        let id = UUID().uuidString.lowercased()
        let first = State(job: id, asset: asset, state: "queued")
        try states.withLock { states throws(Refusal) in
            let waiting = states.values.filter { $0.state == "queued" }.count
            guard waiting < Self.maximumWaiting else { throw .busy(waiting: waiting) }
            states[id] = first
        }
        var arguments = ["edit", String(asset), "--library", libraryRoot, "--json", "--progress-lines"]
        for step in steps { arguments += [extending ? "--add-filter" : "--filter", step.description] }
        Thread.detachNewThread { [self, arguments] in
            slots.wait()
            defer { slots.signal() }
            update(id) { $0?.state = "running" }
            let outcome = run(arguments, job: id)
            update(id) { s in
                switch outcome {
                case .success(let warnings):
                    s?.state = "done"
                    s?.warnings = warnings
                case .failure(let reason):
                    s?.state = "failed"
                    s?.error = "asset \(asset): \(reason)"
                }
            }
        }
        return first
    }

    func state(_ id: String) async -> State? {
        states.withLock { $0[id] }
    }

    private enum Outcome {
        case success(warnings: [String])
        case failure(String)
    }

    /// Runs one edit in a child camlib: its progress lines go into the job's state, its
    /// other words on standard error are the failure's reason.
    private func run(_ arguments: [String], job: String) -> Outcome {
        let child: ChildCamlib
        do {
            child = try ChildCamlib(executable: executable, arguments: arguments, timeLimit: timeLimit, readErrors: true)
        } catch {
            return .failure("cannot start the edit (\(executable)): \(error)")
        }
        // Standard output is the result, read whole on a thread of its own so neither pipe
        // fills while the other is read.
        let result = Mutex<Data>(Data())
        let readerDone = DispatchSemaphore(value: 0)
        let output = child.output.fileHandleForReading
        Thread.detachNewThread {
            let data = output.readDataToEndOfFile()
            result.withLock { $0 = data }
            readerDone.signal()
        }
        var said: [String] = []
        var pending = Data()
        while let errors = child.errors?.fileHandleForReading {
            let chunk = errors.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if !progress(line, job: job) { said.append(line) }
            }
        }
        if !pending.isEmpty { said.append(String(decoding: pending, as: UTF8.self)) }
        let ending = child.finish()
        readerDone.wait()
        let words = said.map { $0.hasPrefix("camlib: ") ? String($0.dropFirst(8)) : $0 }.filter { !$0.isEmpty }
        switch ending {
        case .timedOut:
            return .failure("the edit took longer than \(Int(timeLimit)) seconds and was stopped")
        case .crashed(let name):
            let said = said.filter { $0.hasPrefix("camlib: ") }.map { String($0.dropFirst(8)) }
            return .failure("the edit crashed (\(name)); the gallery goes on, and the asset is as it was" + (said.isEmpty ? "" : ": " + said.joined(separator: "; ")))
        case .exited(let status) where status != 0:
            return .failure(words.isEmpty ? "the edit failed (exit status \(status))" : words.joined(separator: "; "))
        case .exited:
            break
        }
        struct Answer: Decodable { var warnings: [String] }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: result.withLock { $0 }) else {
            return .failure("camlib internal error: the edit gave no result")
        }
        return .success(warnings: answer.warnings)
    }

    /// A progress line of the child's, taken into the job's state; false for other words.
    private func progress(_ line: String, job: String) -> Bool {
        struct Line: Decodable {
            var phase: String
            var framesDone: Int?
            var framesExpected: Int?
        }
        guard line.hasPrefix("{"), let parsed = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) else { return false }
        update(job) { s in
            s?.phase = parsed.phase
            if parsed.framesDone != nil {
                s?.framesDone = parsed.framesDone
                s?.framesExpected = parsed.framesExpected
            }
        }
        return true
    }

    private func update(_ id: String, _ change: (inout State?) -> Void) {
        states.withLock { states in
            change(&states[id])
            // Finished jobs are kept for the page to read, the latest 200 of them.
            let finished = states.values.filter { $0.state == "done" || $0.state == "failed" }
            if finished.count > 200 {
                for old in finished.sorted(by: { $0.started < $1.started }).prefix(finished.count - 200) { states[old.job] = nil }
            }
        }
    }
}
