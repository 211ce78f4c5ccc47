import ArgumentParser
import Foundation
import Library

struct JobsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Jobs by kind and state, the workers and what each runs, the failed jobs with their errors.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Only the workers, by host: the kinds each takes, what it runs now, when it was last heard from.")
    var workers = false

    @OptionGroup var output: JSONOutput<JobsListCommand>

    func run() throws {
        let library = try libraryOptions.open(.read)
        let status = try library.jobQueueStatus()
        if workers { return try printWorkers(status.workers) }
        if output.json { return print(try Terminal.json(status)) }
        if status.counts.isEmpty { return print("No jobs.") }
        let states: [JobState] = [.available, .running, .done, .failed, .cancelled]
        let kinds = Set(status.counts.map(\.kind)).sorted()
        let rows = kinds.map { kind in
            [kind.rawValue] + states.map { state in String(status.counts.first { $0.kind == kind && $0.state == state }?.jobs ?? 0) }
        }
        print(AssetTable.table(header: ["KIND", "WAITING", "RUNNING", "DONE", "FAILED", "CANCELLED"], rows: rows), terminator: "")
        if !status.workers.isEmpty {
            print("\nWorkers:")
            let rows = status.workers.map { w in
                [w.host.terminalSafe(), String(w.pid), w.job.map { "job \($0): \(w.jobKind?.noun ?? "?") of asset \(w.asset ?? 0)" } ?? "idle",
                 String(w.heartbeatAt.prefix(19)).replacingOccurrences(of: "T", with: " ")]
            }
            print(AssetTable.table(header: ["HOST", "PID", "RUNS", "LAST HEARD (UTC)"], rows: rows), terminator: "")
        }
        if !status.failed.isEmpty {
            print("\nFailed (`camlib jobs retry --failed` tries them again):")
            for job in status.failed { print("  job \(job.id): \((job.lastError ?? "\(job.kind.noun) of asset \(job.asset)").terminalSafe())") }
        }
    }
}

extension JobsListCommand {
    /// `--workers`: one line a worker, by host.
    func printWorkers(_ workers: [JobQueueStatus.Worker]) throws {
        if output.json { return print(try Terminal.json(workers)) }
        if workers.isEmpty { return print("No worker runs (`camlib worker` starts one).") }
        let rows = workers.map { w in
            [w.host.terminalSafe(), String(w.pid), w.kinds.count == JobKind.allCases.count ? "all" : w.kinds.map(\.rawValue).joined(separator: ","),
             w.job.map { "job \($0): \(w.jobKind?.noun ?? "?") of asset \(w.asset ?? 0)" } ?? "idle",
             String(w.heartbeatAt.prefix(19)).replacingOccurrences(of: "T", with: " ")]
        }
        print(AssetTable.table(header: ["HOST", "PID", "KINDS", "RUNS", "LAST HEARD (UTC)"], rows: rows), terminator: "")
        let hosts = Set(workers.map(\.host)).count
        print("\(workers.count) worker\(workers.count == 1 ? "" : "s") on \(hosts) host\(hosts == 1 ? "" : "s")")
    }
}

extension JobsListCommand: JSONDescribed {
    static let jsonFields =
        "{counts: [{kind, state, jobs}], workers: [worker], running: [job], failed: [job]}, or with --workers [worker]; a worker is {host, pid, kinds, job, jobKind, asset, startedAt, heartbeatAt}; a job is {id, kind, asset, resource, arguments, batch, state, priority, runAfter, attempt, maxAttempts, host, pid, leaseUntil, progress, lastError, result, createdAt, startedAt, finishedAt}"
}
