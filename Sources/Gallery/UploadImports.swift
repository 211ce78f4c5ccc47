import Codecs
import Foundation
import Library
import Synchronization

/// Imports the uploads that have arrived whole, through the same ``Importer`` as
/// `camlib import`: analysed in child processes (an uploaded file is untrusted), its
/// thumbnails and proxies left to the workers as jobs. Files that arrive while an import
/// runs wait and go together in the next: one import of many files analyses them in
/// parallel and commits them in few transactions. The analysis workers stay from one
/// import to the next (``AnalysisWorkers/keeps``): starting two processes for each
/// import of a few files cost more CPU than the files.
final class UploadImports: Sendable {
    let library: PhotoLibrary
    let store: UploadStore

    private struct Waiting {
        var id: String
        var file: URL
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = false
        /// Those waiting for each upload's import, by upload: one import however many ask.
        var listeners: [String: [@Sendable (ImportedFile) -> Void]] = [:]
        /// Imports ended so far (``outcomes``), and those waiting for the next.
        var ended = 0
        var waitingForAny: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    /// Started with the first upload's import, kept while the gallery runs.
    private let workers: AnalysisWorkers

    init(library: PhotoLibrary, store: UploadStore, executable: String) {
        self.library = library
        self.store = store
        workers = AnalysisWorkers(executable: executable, keeps: true)
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

    /// How many uploads' imports have ended since the gallery started: what
    /// ``nextOutcome(after:within:)`` waits to see move.
    var outcomes: Int { state.withLock { $0.ended } }

    /// Returns once an upload's import ends after ``outcomes`` was `seen` (at once if one
    /// has), or after `seconds`.
    func nextOutcome(after seen: Int, within seconds: Double) async {
        let key = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let moved = state.withLock { state -> Bool in
                guard state.ended == seen else { return true }
                state.waitingForAny[key] = continuation
                return false
            }
            if moved { return continuation.resume() }
            Task { [self] in
                try? await Task.sleep(for: .seconds(seconds))
                state.withLock { $0.waitingForAny.removeValue(forKey: key) }?.resume()
            }
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
                let (listeners, anyone) = state.withLock { state in
                    state.ended += 1
                    defer { state.waitingForAny = [:] }
                    return (state.listeners.removeValue(forKey: item.id) ?? [], Array(state.waitingForAny.values))
                }
                for listener in listeners { listener(result) }
                for continuation in anyone { continuation.resume() }
            }
        }
    }

    private func run(_ batch: [Waiting]) -> [ImportedFile] {
        let paths = batch.map(\.file.path)
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
