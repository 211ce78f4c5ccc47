import Codecs
import ArgumentParser
import Foundation
import Library

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy photos and movies into the library.",
        discussion: Help.reflow(
            """
            Files and folders (recursively). HEIC/HEIF, AVIF, JPEG, PNG, MOV and MP4 are
            imported, told apart by their content, not their names; anything else is skipped
            and counted. Originals are copied byte for byte and made read-only; a file whose
            bytes the library already holds is a duplicate and is not copied again.

            A Live Photo's still and movie become one asset: by Apple's content identifier,
            wherever and whenever each half is imported, or - for files without one - by
            name in the same folder. Apple sidecars (IMG_1234.AAE, IMG_O1234.AAE) and rendered
            edits (IMG_E1234.*) are attached to IMG_1234.

            Each file is listed (`camlib query`, the gallery) as soon as its metadata is
            committed. A thumbnail that takes decoding the picture (a still without a large
            enough one inside it, a movie's first frame) is made afterwards by a job, each
            in a worker process of its own; the import runs those jobs before it returns,
            unless --no-wait leaves them to `camlib worker` or `camlib serve`. Movies that
            browsers cannot play (HEVC) get their H.264 copies made by jobs too, which the
            import leaves to those workers. Ctrl-C while the jobs run leaves the rest
            queued (`camlib jobs`).

            --watch keeps going after the import: what appears in the folders later (a
            phone's photos arriving by Syncthing, PhotoSync or Nextcloud, a card reader's
            copy) is imported once it has stopped changing for --settle seconds and the
            program writing it has closed it (or, if that program hangs with it open, after
            two minutes unchanged). Partial files (*.part, *.tmp, .syncthing.*, *~, hidden
            ones) wait until they are renamed to their real names; a Live Photo's movie that
            comes after its still joins it; a folder that goes (a disk unmounted) is waited
            for and looked through when it is back. With --json, a line for each file and
            folder event. SIGTERM stops it after the import under way.

            --dry-run goes through every file as the import would, in full (reading,
            hashing, pairing, sidecars, errors) on a copy of the catalog, and says what it
            would do; the library is left as it was.

            A file that cannot be read gets a one-line error and the import goes on.
            Exit status: 0 when every file was imported, a duplicate or skipped; 2 when
            some files failed; 1 when the import could not run; 130 when interrupted.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Files and folders to import.", valueName: "path"))
    var paths: [String] = []

    @OptionGroup var output: JSONOutput<ImportCommand>

    @Option(name: .long, help: "Files analysed at once (default: one per core).")
    var jobs: Int?

    @Flag(name: .customLong("dry-run"), help: "Say what the import would do, and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-wait"), help: "Return once every file is listed; leave the thumbnails to camlib worker or serve.")
    var noWait = false

    @Flag(help: "Keep watching the folders, importing what appears in them, until Ctrl-C or SIGTERM.")
    var watch = false

    @Option(help: ArgumentHelp("With --watch: seconds a file must stay unchanged before it is imported.", valueName: "seconds"))
    var settle: Double = 3

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one file or folder to import") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if watch && dryRun { throw ValidationError("--watch imports as files appear; it has no --dry-run") }
        if !(0.1...3600).contains(settle) { throw ValidationError("--settle: give 0.1 to 3600 seconds") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // a worker that dies mid-write must not kill the import
        if watch { return try runWatching() }
        // A mistyped path (or --library) must not leave an empty library behind.
        if !PhotoLibrary.exists(at: libraryOptions.location),
            !paths.contains(where: Importer.exists)
        {
            for path in paths { Terminal.error("camlib: \(LibraryLocation.absolute(path).path): no such file or folder") }
            Terminal.error("camlib: nothing to import, so no library was made at \(libraryOptions.location.path)")
            throw ExitCode.failure
        }
        // The analysis workers start first and load their libraries while the catalog
        // is opened (or made) and the inputs listed.
        var options = ImportOptions(queueDerivedWork: !dryRun)
        if let jobs { options.jobs = jobs }
        let early = max(1, min(options.jobs, Cores.usable - 1))
        options.isolation = .workerProcesses(AnalysisWorkers(prestart: early))
        let (library, scratch) = try openLibrary()
        defer {
            library.endRehearsal()
            if let scratch { try? FileManager.default.removeItem(at: scratch) }
        }
        let importer = Importer(library: library, options: options)

        let pool = RunningPool()
        let signals = StopSignals {
            importer.cancel()
            pool.stop()
        }
        defer { withExtendedLifetime(signals) {} }

        let started = Date()
        let bar = ProgressBar()
        var report = try importer.run(paths: paths) { p in bar.update(done: p.done, total: p.total, item: p.path) }
        bar.finish()
        report.library = libraryOptions.location.path
        if let batch = report.jobBatch {
            if !noWait && !report.interrupted {
                report.interrupted = try runThumbnails(batch, in: library, pool: pool)
            }
            var jobs = ImportJobs()
            let progress = try library.jobProgress(batch: batch)
            (jobs.queued, jobs.done, jobs.failed) = (progress.total, progress.done, progress.failed)
            jobs.waiting = progress.total - progress.finished
            report.jobs = jobs
            report.errors += try library.failedImportJobs(batch: batch)
            report.seconds = Date().timeIntervalSince(started)
        }

        if output.json {
            print(try Terminal.json(report))
        } else {
            printSummary(report)
        }
        // Errors go to stderr in every mode, so `camlib import ... > log` and scripts
        // reading the JSON still show them to a person.
        for e in report.errors { Terminal.error("camlib: \(e.path): \(e.message)") }
        if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
        if !report.errors.isEmpty { throw ExitCode(ExitStatus.partialFailure) }
    }

    /// Runs the import's thumbnail jobs in worker processes, with a progress bar; true when
    /// interrupted (Ctrl-C), which leaves the rest queued.
    func runThumbnails(_ batch: String, in library: PhotoLibrary, pool: RunningPool) throws -> Bool {
        let workers = WorkerPool(
            library: library,
            options: .init(processes: jobs ?? Cores.usable, kinds: [.thumbnail], batch: batch, untilIdle: true))
        let total = try library.jobProgress(batch: batch).total
        return pool.runToTheEnd(workers, total: total, unit: "thumbnails", what: "the thumbnails")
    }

    /// The library to import into; for a dry run, a rehearsal of it, or, when there is
    /// none yet (a dry run makes no library), an empty one in a temporary folder, deleted
    /// afterwards (`scratch`).
    func openLibrary() throws -> (library: PhotoLibrary, scratch: URL?) {
        guard dryRun else { return (try libraryOptions.open(.create), nil) }
        if let existing = try libraryOptions.openIfExists() {
            // A rehearsal writes nothing into the library: a read-only one can have one.
            return (try existing.rehearsing(), nil)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-dry-run-\(getpid())-\(UUID().uuidString)")
        do {
            return (try PhotoLibrary(root: scratch, mode: .create).rehearsing(), scratch)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
    }

    func printSummary(_ r: ImportReport) {
        var lines: [String] = []
        let time = String(format: "%.1f s", r.seconds)
        let would = r.dryRun ? "would be " : ""
        if r.imported == 0 && r.errors.isEmpty && r.duplicates > 0 && !r.interrupted {
            lines.append("Nothing new: all \(r.duplicates) photo and movie files are already in \(r.library) (\(time)).")
        } else {
            var parts = [counted(r.assetsCreated, "new asset")]
            if r.livePhotosPaired > 0 { parts.append("\(r.livePhotosPaired) Live Photos \(would)paired") }
            if r.attached > 0 { parts.append("\(r.attached) sidecars and edits \(would)attached") }
            lines.append(
                "\(r.dryRun ? "Would import" : "Imported") \(r.imported) of \(r.files) files into \(r.library): \(parts.joined(separator: ", ")) (\(time)).")
            var rest: [String] = []
            if r.duplicates > 0 { rest.append("\(r.duplicates) already in the library") }
            if r.skipped > 0 { rest.append("\(r.skipped) skipped") }
            if !r.errors.isEmpty { rest.append("\(r.errors.count) could not be imported") }
            if !rest.isEmpty { lines.append(rest.joined(separator: ", ") + ".") }
        }
        if !r.assetsInTrash.isEmpty {
            let ids = r.assetsInTrash.map(String.init).joined(separator: " ")
            lines.append("In the trash, so not listed until restored: \(counted(r.assetsInTrash.count, "asset")) (`camlib restore \(ids)`).")
        }
        if r.interrupted { lines.append("Interrupted: the files not listed above were not looked at; run the import again to finish.") }
        if let jobs = r.jobs, jobs.waiting > 0 {
            lines.append("\(counted(jobs.waiting, "job")) (thumbnails, browsers' copies) wait for `camlib worker` or `camlib serve` (`camlib jobs`).")
        }
        if r.dryRun { lines.append("Nothing was changed (--dry-run).") }
        print(lines.joined(separator: "\n"))
        if !r.skippedFiles.isEmpty {
            print("Skipped:")
            for s in r.skippedFiles { print("  \(s.path): \(s.message)".terminalSafe()) }
        }
        if !r.warnings.isEmpty {
            print(r.dryRun ? "Would be imported with warnings:" : "Imported with warnings:")
            for w in r.warnings { print("  \(w.path): \(w.message)".terminalSafe()) }
        }
    }
}

extension ImportCommand: JSONDescribed {
    static let jsonFields = "the import's report (docs/reference/json.md)"
}

