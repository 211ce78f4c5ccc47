import Codecs
import Foundation
import Library
import Synchronization

/// Imports the uploads that have arrived whole, through the same ``Importer`` as
/// `camlib import`: analysed in child processes (an uploaded file is untrusted), its
/// thumbnails and proxies left to the workers as jobs. Files that arrive while an import
/// runs wait and go together in the next: one import of many files analyses them in
/// parallel and commits them in few transactions, where one import a file would start
/// a child for each.
final class UploadImports: Sendable {
    let library: PhotoLibrary
    let store: UploadStore
    let executable: String

    private struct Waiting {
        var id: String
        var file: URL
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = false
        /// Those waiting for each upload's import, by upload: one import however many ask.
        var listeners: [String: [@Sendable (ImportedFile) -> Void]] = [:]
    }

    private let state = Mutex(State())
    /// Analysis workers started while an import runs, for the next one: a worker takes
    /// about 50 ms to start, which each import of a few files would otherwise wait for.
    private let spare = Mutex<AnalysisWorkers?>(nil)

    init(library: PhotoLibrary, store: UploadStore, executable: String) {
        self.library = library
        self.store = store
        self.executable = executable
    }

    /// Queues upload `id`, whose whole file is `file`, for import, unless it is queued or
    /// being imported already; returns at once. The outcome is recorded in the store.
    func start(_ id: String, _ file: URL) {
        let first = state.withLock { state -> Bool in
            guard state.listeners[id] == nil else { return false }
            state.listeners[id] = []
            state.waiting.append(Waiting(id: id, file: file))
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if first { Thread.detachNewThread { [self] in drain() } }
    }

    /// Whether upload `id` is queued or being imported.
    func isImporting(_ id: String) -> Bool {
        state.withLock { $0.listeners[id] != nil }
    }

    /// What became of upload `id`, once its import (queued with ``start(_:_:)``) ends; nil
    /// when it is not being imported.
    func outcome(_ id: String) async -> ImportedFile? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ImportedFile?, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard state.listeners[id] != nil else { return false }
                state.listeners[id]!.append { continuation.resume(returning: $0) }
                return true
            }
            if !waiting { continuation.resume(returning: nil) }
        }
    }

    /// Imports what waits, again and again, until nothing does.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let taken = state.waiting
                state.waiting = []
                if taken.isEmpty { state.running = false }
                return taken
            }
            guard !batch.isEmpty else { return }
            let results = run(batch)
            for (item, result) in zip(batch, results) {
                // Only the record can fail here (a full disk): the page hears the outcome
                // all the same, and an upload whose record is missing is swept later.
                try? store.finish(item.id, file: item.file, result: result)
                let listeners = state.withLock { $0.listeners.removeValue(forKey: item.id) } ?? []
                for listener in listeners { listener(result) }
            }
        }
    }

    private func run(_ batch: [Waiting]) -> [ImportedFile] {
        let paths = batch.map(\.file.path)
        let workers = spare.withLock { $0.take() } ?? AnalysisWorkers(executable: executable, prestart: min(Cores.usable, paths.count))
        let executable = self.executable
        let next = Thread { [self] in let made = AnalysisWorkers(executable: executable, prestart: Cores.usable); spare.withLock { $0 = made } }
        next.start()
        let options = ImportOptions(
            jobs: min(Cores.usable, paths.count), isolation: .workerProcesses(workers), queueDerivedWork: true, recordsFiles: true)
        do {
            let report = try Importer(library: library, options: options).run(paths: paths)
            let outcomes = Dictionary((report.fileOutcomes ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            return batch.map { item in
                var outcome = outcomes[item.file.path] ?? ImportedFile(path: item.file.path, outcome: .failed, message: "the import said nothing of it")
                outcome.path = item.file.lastPathComponent
                if let asset = outcome.asset, report.assetsInTrash.contains(asset) {
                    outcome.message = "its asset is in the trash"
                }
                return outcome
            }
        } catch {
            return batch.map { ImportedFile(path: $0.file.lastPathComponent, outcome: .failed, message: "\(error)") }
        }
    }
}
