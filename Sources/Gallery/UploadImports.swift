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
        var done: CheckedContinuation<ImportedFile, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = false
    }

    private let state = Mutex(State())

    init(library: PhotoLibrary, store: UploadStore, executable: String) {
        self.library = library
        self.store = store
        self.executable = executable
    }

    /// Imports upload `id`, whose whole file is `file`, and returns what became of it
    /// (also recorded in the store).
    func importFile(_ id: String, _ file: URL) async -> ImportedFile {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state -> Bool in
                state.waiting.append(Waiting(id: id, file: file, done: continuation))
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if start { Thread.detachNewThread { [self] in drain() } }
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
                item.done.resume(returning: result)
            }
        }
    }

    private func run(_ batch: [Waiting]) -> [ImportedFile] {
        let paths = batch.map(\.file.path)
        let options = ImportOptions(
            jobs: min(Cores.usable, paths.count), isolation: .workerProcesses(AnalysisWorkers(executable: executable)), queueDerivedWork: true,
            recordsFiles: true)
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
