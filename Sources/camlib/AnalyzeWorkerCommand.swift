import ArgumentParser
import Foundation
import Library

/// Hidden: the analysis worker `camlib import` starts, one per core.
struct AnalyzeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze-worker", abstract: "Internal: analyses files for an import (JSON lines on stdin/stdout).",
        shouldDisplay: false)

    func run() throws {
        // Ctrl-C reaches the whole process group; the import decides when workers stop.
        signal(SIGINT, SIG_IGN)
        AnalysisWorker.serve()
        // Every answer is written (unbuffered); the C libraries' exit handlers have
        // nothing to save, and a worker must not hang on its way out.
        _exit(0)
    }
}
