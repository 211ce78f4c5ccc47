import Codecs
import Containers
import Foundation
import Synchronization

/// Options of an import.
public struct ImportOptions: Sendable {
    /// Files analysed at once; defaults to the number of cores.
    public var jobs: Int
    public var isolation: AnalysisIsolation
    /// Leave what takes decoding (the thumbnail of a still without a usable embedded
    /// one, a movie's poster frame) and the browsers' H.264 proxies to jobs, queued in the
    /// transaction that commits each file, as the batch ``ImportReport/jobBatch``: the
    /// import then commits at the speed of reading metadata, and a worker (or the
    /// import, afterwards) runs the jobs. Otherwise thumbnails are made as files are
    /// analysed.
    public var queueDerivedWork: Bool
    /// Say what happened to each file (``ImportReport/fileOutcomes``).
    public var recordsFiles: Bool

    public init(jobs: Int = Cores.usable, isolation: AnalysisIsolation = .inProcess, queueDerivedWork: Bool = false, recordsFiles: Bool = false) {
        self.jobs = max(1, jobs)
        self.isolation = isolation
        self.queueDerivedWork = queueDerivedWork
        self.recordsFiles = recordsFiles
    }
}

/// Brings files into a library: analyses them in parallel (each worker also stages a
/// copy of the original in tmp/), then, in input order, links the copies into originals/
/// and records them with their metadata, thumbnails and Live Photo pairing, a group of
/// files (whatever has arrived) in one transaction.
///
/// ```swift
/// let report = try Importer(library: lib).run(paths: ["/media/phone/DCIM"]) { p in print(p.done, p.total) }
/// ```
public final class Importer: Sendable {
    public let library: PhotoLibrary
    public let options: ImportOptions
    private let cancelled = Atomic<Bool>(false)

    public init(library: PhotoLibrary, options: ImportOptions = ImportOptions()) {
        self.library = library
        self.options = options
    }

    /// Files committed in one transaction at most (see ``ImportSession/commitMedia(_:into:)``).
    static let largestGroup = 32

    /// Stops after the files being committed; safe to call from a signal handler's queue.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Whether `path`, as given (on the command line, where it need not be UTF-8), names
    /// a file or folder.
    public static func exists(_ path: String) -> Bool {
        RawPath.given(path).withCString { access($0, F_OK) } == 0
    }

    public func run(paths: [String], progress: (ImportProgress) -> Void = { _ in }) throws -> ImportReport {
        let started = Date()
        var report = ImportReport(library: library.root.path)
        let inputs = ImportInputs(paths: paths, excluding: library.root, standInsIn: library.temporary)
        defer { inputs.standIns.remove() }
        let shown = inputs.standIns.presented
        report.files = inputs.count
        report.errors = inputs.errors
        report.skippedFiles = inputs.skipped
        report.skipped = inputs.skipped.count
        let batch = options.queueDerivedWork ? "import-\(UUID().uuidString.lowercased())" : nil
        var session = ImportSession(library: library, standIns: inputs.standIns, jobBatch: batch)
        var done = inputs.errors.count + inputs.skipped.count
        let total = inputs.count

        // 1. Photos and movies: analysed in parallel, committed here as they arrive, in
        // groups of whatever has arrived meanwhile (one transaction and one fsync of each
        // folder per group: see ImportSession.commitMedia).
        var deferredRenders: [MediaAnalysis] = []
        let analyses = AnalysisPipeline(paths: inputs.media, library: library, options: options, isCancelled: { [self] in isCancelled })
        var group: [MediaAnalysis] = []
        func commitGroup() {
            guard !group.isEmpty else { return }
            session.commitMedia(group, into: &report)
            for analysis in group {
                done += 1
                progress(ImportProgress(done: done, total: total, path: shown(analysis.path)))
            }
            group = []
        }
        while let arrived = analyses.next(upTo: Self.largestGroup) {
            for outcome in arrived {
                if case .analyzed(let analysis) = outcome {
                    for w in analysis.warnings { report.warnings.append(FileProblem(path: analysis.path, message: w)) }
                    if session.isRenderCandidate(analysis.path) {
                        // IMG_E1234.*: attached (and counted) once every IMG_1234 of this
                        // import is in.
                        deferredRenders.append(analysis)
                    } else {
                        group.append(analysis)
                    }
                    continue
                }
                // In input order: what came before is committed first.
                commitGroup()
                done += 1
                switch outcome {
                case .skipped(let path, let reason):
                    report.skipped += 1
                    report.skippedFiles.append(FileProblem(path: path, message: reason))
                    progress(ImportProgress(done: done, total: total, path: shown(path)))
                case .failed(let path, let reason):
                    report.errors.append(FileProblem(path: path, message: reason))
                    progress(ImportProgress(done: done, total: total, path: shown(path)))
                case .alreadyInLibrary(let path, let sha256, let format):
                    session.recordKnown(path: path, sha256: sha256, isStill: format.isStill, into: &report)
                    progress(ImportProgress(done: done, total: total, path: shown(path)))
                case .analyzed:
                    break
                }
            }
            commitGroup()
            if isCancelled { break }
        }
        analyses.finish()

        // 2. Rendered edits (IMG_E1234.*), then adjustment sidecars (.AAE).
        for analysis in deferredRenders where !isCancelled {
            done += 1
            session.commitRender(analysis, into: &report)
            progress(ImportProgress(done: done, total: total, path: shown(analysis.path)))
        }
        // Apple's sidecars before camlib's histories, which say which renders are camlib's
        // and which edit is current, whatever an Apple sidecar claimed before them.
        let isHistory = { (path: String) in path.hasSuffix(Exporter.HistorySidecar.suffix) }
        for path in inputs.sidecars.filter({ !isHistory($0) }) + inputs.sidecars.filter(isHistory) where !isCancelled {
            done += 1
            if isHistory(path) {
                session.commitHistory(path, into: &report)
            } else {
                session.commitSidecar(path, into: &report)
            }
            progress(ImportProgress(done: done, total: total, path: shown(path)))
        }
        // Again at the end: a worker of an import killed earlier may have outlived the
        // sweep at open and written its last thumbnail since.
        library.removeAbandonedTemporaries()
        for i in report.errors.indices { report.errors[i].path = shown(report.errors[i].path) }
        for i in report.warnings.indices { report.warnings[i].path = shown(report.warnings[i].path) }
        for i in report.skippedFiles.indices { report.skippedFiles[i].path = shown(report.skippedFiles[i].path) }
        report.interrupted = isCancelled
        if let batch, library.rehearsal == nil, try library.jobProgress(batch: batch).total > 0 { report.jobBatch = batch }
        report.dryRun = library.isRehearsal
        report.assetIDs = session.touchedAssets.sorted()
        if options.recordsFiles { report.fileOutcomes = Self.outcomes(of: inputs, session: session, report: report, shown: shown) }
        report.assetsInTrash = (try? library.trashed(among: session.assetsMet)) ?? []
        report.seconds = Date().timeIntervalSince(started)
        return report
    }
}

extension Importer {
    /// Every input file's outcome, in input order: from the session for those that went
    /// to an asset, else from the report's errors and skipped files.
    static func outcomes(of inputs: ImportInputs, session: ImportSession, report: ImportReport, shown: (String) -> String) -> [ImportedFile] {
        let failed = Dictionary(report.errors.map { ($0.path, $0.message) }, uniquingKeysWith: { first, _ in first })
        let skipped = Dictionary(report.skippedFiles.map { ($0.path, $0.message) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var files: [ImportedFile] = []
        for path in inputs.media + inputs.sidecars + report.errors.map(\.path) + report.skippedFiles.map(\.path) {
            let name = shown(path)
            guard seen.insert(name).inserted else { continue }
            if var known = session.fileOutcomes[path] {
                known.path = name
                files.append(known)
            } else if let message = failed[name] {
                files.append(ImportedFile(path: name, outcome: .failed, message: message))
            } else if let message = skipped[name] {
                files.append(ImportedFile(path: name, outcome: .skipped, message: message))
            } else {
                files.append(ImportedFile(path: name, outcome: .failed, message: ImportedFile.notReached))
            }
        }
        return files
    }
}

/// The analysis threads: each owns an analyzer (a worker process, or this process) and
/// takes the next path until none are left. Outcomes are handed out in input order, so
/// an import is deterministic (which of two identical files is kept, asset numbering)
/// however the threads race.
/// `@unchecked Sendable`: everything the analysis threads share is under `condition`.
final class AnalysisPipeline: @unchecked Sendable {
    // Shared state is guarded by `condition`; analyzers belong to one thread each.
    private let condition = NSCondition()
    private var results: [Int: AnalysisOutcome] = [:]
    private var nextIndex = 0
    private var running = 0
    private var delivered = 0
    private let paths: [String]
    private let isCancelled: @Sendable () -> Bool
    private let group = DispatchGroup()

    init(paths: [String], library: PhotoLibrary, options: ImportOptions, isCancelled: @escaping @Sendable () -> Bool) {
        self.paths = paths
        self.isCancelled = isCancelled
        let threads = min(options.jobs, paths.count)
        running = threads
        let tmp = library.temporary
        let catalogPath = library.catalog.path
        for _ in 0..<threads {
            group.enter()
            let thread = Thread { [self] in
                let workers: AnalysisWorkers? =
                    switch options.isolation {
                    case .inProcess: nil
                    case .workerProcesses(let workers): workers
                    }
                let worker = workers?.take()
                let analyzer: Analyzer = worker ?? InProcessAnalyzer()
                while let (index, path) = take() {
                    // CPU seconds: short for the small hostile files that spin a decoder,
                    // growing with size for big movies (hashing at 20 MB/s is far below
                    // real speed).
                    var info = stat()
                    let size = stat(path, &info) == 0 ? Int(info.st_size) : 0
                    let limit = AnalysisPipeline.timeLimit(bytes: size)
                    let outcome = analyzer.analyze(
                        path: path, stagingDirectory: tmp, catalogPath: catalogPath, timeLimit: limit, decodePictures: !options.queueDerivedWork)
                    put(outcome, at: index)
                }
                if let workers, let worker { workers.finished(with: worker) } else { analyzer.stop() }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// CPU seconds a worker may spend on a file of `bytes` before camlib gives up on it.
    static func timeLimit(bytes: Int) -> Double { 6 + Double(bytes) / 20_000_000 }

    private func take() -> (Int, String)? {
        condition.lock()
        defer { condition.unlock() }
        guard !isCancelled(), nextIndex < paths.count else { return nil }
        nextIndex += 1
        return (nextIndex - 1, paths[nextIndex - 1])
    }

    private func put(_ outcome: AnalysisOutcome, at index: Int) {
        condition.lock()
        results[index] = outcome
        condition.broadcast()
        condition.unlock()
    }

    /// The outcome of the next path in input order, waiting for it, and those of the
    /// paths after it that are ready too, up to `limit` in all; nil when every path has
    /// been delivered (or the import was cancelled and the threads stopped).
    func next(upTo limit: Int) -> [AnalysisOutcome]? {
        condition.lock()
        defer { condition.unlock() }
        while results[delivered] == nil {
            if delivered == paths.count || running == 0 { return nil }
            condition.wait()
        }
        var ready: [AnalysisOutcome] = []
        while ready.count < limit, let outcome = results.removeValue(forKey: delivered) {
            ready.append(outcome)
            delivered += 1
        }
        return ready
    }

    /// Waits for the threads, and drops the staged files of outcomes nobody committed.
    func finish() {
        group.wait()
        condition.lock()
        let leftovers = results.values
        results = [:]
        condition.unlock()
        for outcome in leftovers { outcome.discardStagedFiles() }
    }
}
