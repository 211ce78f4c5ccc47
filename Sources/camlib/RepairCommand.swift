import ArgumentParser
import Codecs
import Foundation
import Library

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Mend what verify finds that the library itself can mend.",
        discussion: Help.reflow(
            """
            Makes every missing or damaged derived file again from the file it was made
            from (thumbnails, auxiliary images' PNGs, Motion Photo movies and posters), and
            renders camlib's own edits again from their recipes, so deleting derived/ loses
            nothing. Deletes files under derived/ that no catalog row names (what an import
            or edit killed half-way left), and moves such files under originals/ to
            lost+found/TIME/ in the library, where you can look at them: nothing of yours
            is deleted. Finishes an emptying of the trash that did not finish. Damaged
            originals are reported, not mended: they come back only from a backup. So is
            the render of an edit carrying images attached with `aux attach` (the library
            does not keep those apart from the render): `camlib revert` and `aux attach`
            make a new one.
            What takes decoding is done by jobs, as import's thumbnails are: one per asset
            whose files are lost (its thumbnails, Motion Photo movie, auxiliary images'
            PNGs and camlib's renders), one per broken browsers' copy. Repair runs them in
            worker processes and returns when they are done, saying what each did;
            `--no-wait` leaves them to `camlib worker` or `camlib serve`, and Ctrl-C leaves
            the rest queued (`camlib jobs`).
            Run `camlib verify` afterwards to see that the library is sound.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(name: .customLong("dry-run"), help: "Say what would be done, and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-wait"), help: "Queue the jobs that make files again and return; leave them to camlib worker or serve.")
    var noWait = false

    @Option(name: .long, help: "Jobs run at once (default: one per core).")
    var jobs: Int?

    @OptionGroup var output: JSONOutput<RepairCommand>

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // a worker that dies mid-write must not kill the repair
        // A dry run changes nothing: a library on read-only storage can have one.
        let library = try libraryOptions.open(dryRun ? .read : .write)
        let progress = ProgressBar(unit: "files checked")
        var report = try library.repair(dryRun: dryRun, runJobs: false) { done, total in progress.update(done: done, total: total, item: "") }
        progress.finish()
        var interrupted = false
        if let batch = report.jobBatch, !noWait {
            // Ctrl-C before this point stops at once (nothing half-done: each file is
            // placed and recorded in one transaction); from here it stops the workers,
            // leaving the jobs they did not run queued.
            let pool = RunningPool()
            let signals = StopSignals { pool.stop() }
            defer { withExtendedLifetime(signals) {} }
            let workers = WorkerPool(
                library: library, options: .init(processes: jobs ?? Cores.usable, kinds: PhotoLibrary.repairJobKinds, batch: batch, untilIdle: true))
            let total = try library.jobProgress(batch: batch).total
            interrupted = pool.runToTheEnd(workers, total: total, unit: "jobs", what: "the files to make again")
        }
        try library.settleRepairJobs(&report)
        if output.json {
            print(try Terminal.json(report))
        } else if report.actions.isEmpty {
            print("Nothing to repair.")
        } else {
            for action in report.actions { print("\(action.kind.rawValue): \(action.detail.terminalSafe())") }
            let mended = report.actions.filter { $0.kind != .notRepaired && $0.kind != .queued }.count
            let queued = report.actions.filter { $0.kind == .queued }.count
            let left = report.actions.filter { $0.kind == .notRepaired }.count
            var line = dryRun ? "Would mend \(counted(mended, "thing"))" : "Mended \(counted(mended, "thing"))"
            if queued > 0 { line += "; \(queued) left to jobs that `camlib worker` or `camlib serve` runs (`camlib jobs`)" }
            if left > 0 { line += "; \(left) cannot be mended here (see above)" }
            print(line + ".")
            if let aside = report.lostAndFound { print("Files no row named are in \(aside).") }
        }
        if interrupted { throw ExitCode(ExitStatus.interrupted) }
        if report.actions.contains(where: { $0.kind == .notRepaired }) { throw ExitCode(ExitStatus.partialFailure) }
    }
}

extension RepairCommand: JSONDescribed {
    static let jsonFields = "{dryRun, lostAndFound, jobBatch, actions: [{kind, asset, path, detail, job}]}"
}
