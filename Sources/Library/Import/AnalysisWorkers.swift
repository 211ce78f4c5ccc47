import Foundation
import Synchronization

/// The analysis worker processes of an import (`EXECUTABLE analyze-worker`), some of them
/// started ahead: a worker takes about 50 ms to start here (the process, libheif's
/// plugins, FFmpeg), which the import would otherwise wait for before its first file.
/// Started when the command starts, they load while the import opens or creates its
/// catalog and lists its inputs. Workers left unused are stopped when this goes.
///
/// ```swift
/// let workers = AnalysisWorkers(executable: exe, prestart: 2)   // now, first thing
/// let library = try PhotoLibrary(root: url, mode: .create)      // meanwhile, they load
/// try Importer(library: library, options: ImportOptions(isolation: .workerProcesses(workers))).run(paths: paths)
/// ```
public final class AnalysisWorkers: Sendable {
    public let executable: String
    private let started: Mutex<[WorkerProcessAnalyzer]>

    /// Starts `prestart` workers at once; a worker that cannot start is started again
    /// (and its error reported) when a file needs it.
    public init(executable: String, prestart: Int = 0) {
        self.executable = executable
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

    deinit {
        for worker in started.withLock({ $0 }) { worker.stop() }
    }
}
