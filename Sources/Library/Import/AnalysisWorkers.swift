import Foundation
import Synchronization

/// The analysis worker processes of an import (`EXECUTABLE analyze-worker`), some of them
/// started ahead: a worker takes about 50 ms to start here (the process, libheif's
/// plugins, FFmpeg), which the import would otherwise wait for before its first file.
/// Started when the command starts, they load while the import opens or creates its
/// catalog and lists its inputs. Workers left unused are stopped when this goes.
///
/// Where imports follow one another (the gallery's uploads, a watched folder), `keeps`
/// workers: one an import has finished with waits for the next import rather than
/// ending, so a run of small imports does not start two processes each (their start-up,
/// the dynamic linker's above all, cost more CPU than analysing a few photos). A worker
/// is retired after ``filesPerWorker`` files, so that nothing it holds on to grows for
/// ever.
///
/// ```swift
/// let workers = AnalysisWorkers(executable: exe, prestart: 2)   // now, first thing
/// let library = try PhotoLibrary(root: url, mode: .create)      // meanwhile, they load
/// try Importer(library: library, options: ImportOptions(isolation: .workerProcesses(workers))).run(paths: paths)
/// ```
public final class AnalysisWorkers: Sendable {
    public let executable: String
    /// Whether workers are kept for the next import.
    public let keeps: Bool
    private let started: Mutex<[WorkerProcessAnalyzer]>

    /// Files a kept worker analyses before it is stopped.
    public static let filesPerWorker = 2_000

    /// Starts `prestart` workers at once; a worker that cannot start is started again
    /// (and its error reported) when a file needs it.
    public init(executable: String, prestart: Int = 0, keeps: Bool = false) {
        self.executable = executable
        self.keeps = keeps
        var workers: [WorkerProcessAnalyzer] = []
        for _ in 0..<max(0, prestart) {
            let worker = WorkerProcessAnalyzer(executable: executable)
            try? worker.startIfNeeded()
            workers.append(worker)
        }
        started = Mutex(workers)
    }

    /// A worker for one analysis thread: one started ahead while there are any, a new
    /// one (started on its first file) after that.
    func take() -> WorkerProcessAnalyzer {
        started.withLock { $0.popLast() } ?? WorkerProcessAnalyzer(executable: executable)
    }

    /// Takes back a worker an import's thread has finished with: kept for the next import
    /// when this ``keeps`` workers and the worker has not served its time, else stopped.
    func finished(with worker: WorkerProcessAnalyzer) {
        guard keeps, worker.analysed < Self.filesPerWorker else { return worker.stop() }
        started.withLock { $0.append(worker) }
    }

    deinit {
        for worker in started.withLock({ $0 }) { worker.stop() }
    }
}
