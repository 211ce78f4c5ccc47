import ArgumentParser
import Codecs
import Foundation
import Library

/// `camlib import --watch`: the import of the folders, and then of what appears in them.
extension ImportCommand {
    /// One line of `--json` output.
    struct WatchLine: Encodable {
        var event: String
        var path: String?
        var from: String?
        var asset: Int64?
        var paired: Bool?
        var message: String?
    }

    func runWatching() throws {
        var options = WatchedImport.Options()
        options.settle = settle
        if let jobs { options.importOptions.jobs = jobs }
        options.importOptions.isolation = .workerProcesses(AnalysisWorkers(prestart: 1, keeps: true))
        let library = try libraryOptions.open(.create)
        let watcher = WatchedImport(library: library, folders: paths, options: options)
        let signals = StopSignals { watcher.stop() }
        defer { withExtendedLifetime(signals) {} }
        let json = output.json
        func say(_ line: WatchLine, _ text: @autoclosure () -> String, error: Bool = false) {
            if json {
                StandardOutput.write((try! Terminal.jsonLine(line)) + "\n")
            } else if error {
                Terminal.error("camlib: \(text())")
            } else {
                StandardOutput.write(text().terminalSafe() + "\n")
            }
        }
        do {
            try watcher.run { event in
                switch event {
                case .watching(let folder):
                    say(WatchLine(event: "watching", path: folder), "Watching \(folder) for photos and movies; Ctrl-C stops.")
                case .folderGone(let folder):
                    say(WatchLine(event: "folderGone", path: folder), "\(folder) is gone (unmounted or removed); waiting for it to come back.")
                case .folderBack(let folder):
                    say(WatchLine(event: "folderBack", path: folder), "\(folder) is back; looking through it.")
                case .renamed(let from, let to):
                    say(WatchLine(event: "renamed", path: to, from: from), "\(to): renamed from \((from as NSString).lastPathComponent) after its import; left alone.")
                case .file(let file):
                    let line = WatchLine(event: file.outcome.rawValue, path: file.path, asset: file.asset, paired: file.paired, message: file.message)
                    switch file.outcome {
                    case .imported:
                        say(line, "\(file.path): imported as asset \(file.asset ?? 0)" + (file.paired == true ? ", the other half of its Live Photo" : ""))
                    case .duplicate: say(line, "\(file.path): already in the library (asset \(file.asset ?? 0))")
                    case .attached: say(line, "\(file.path): attached to asset \(file.asset ?? 0)")
                    case .skipped: say(line, "\(file.path): skipped: \(file.message ?? "")")
                    case .failed: say(line, "\(file.path): \(file.message ?? "could not be imported")", error: true)
                    }
                case .imported(let report):
                    // Thumbnails that take decoding are made now, unless --no-wait leaves them to a worker.
                    if let batch = report.jobBatch, !noWait {
                        let pool = WorkerPool(library: library, options: .init(processes: jobs ?? Cores.usable, kinds: [.thumbnail], batch: batch, untilIdle: true))
                        pool.start()
                        try? pool.wait()
                    }
                }
            }
        } catch let error as WatchError {
            Terminal.error("camlib: \(error)")
            throw ExitCode.failure
        }
        say(WatchLine(event: "stopped"), "Stopped watching.")
    }
}
