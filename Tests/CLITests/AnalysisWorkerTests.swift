import Foundation
import Testing
import TestSupport

@testable import Library

/// `camlib analyze-worker`, the process an import analyses files in, driven by hand.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AnalysisWorkerTests {
    /// What a worker stages belongs to the import that started it: an import links its
    /// Apple renders only after every other file, when its workers have ended, and
    /// another camlib opening the library meanwhile (a `query`) sweeps the temporary
    /// files of processes that no longer run. Named after the worker, the renders' copies
    /// were swept and the import failed on them ("….part: open failed").
    @Test func stagedFilesAreTheImportsAndOutliveTheWorker() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: Camlib.path)
        worker.arguments = ["analyze-worker"]
        let input = Pipe(), output = Pipe()
        worker.standardInput = input
        worker.standardOutput = output
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        let request = AnalysisRequest(
            path: Media.path("apple-misc/IMG_E4120.JPG"), stagingDirectory: library.temporary.path, catalogPath: library.catalog.path)
        try input.fileHandleForWriting.write(contentsOf: JSONEncoder().encode(request) + Data("\n".utf8))
        try input.fileHandleForWriting.close()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        worker.waitUntilExit()
        let answer = try #require(lines.last { !$0.hasPrefix("step ") })
        guard case .analyzed(let a) = try JSONDecoder().decode(AnalysisOutcome.self, from: Data(answer.utf8)) else {
            Issue.record("not analysed: \(answer)")
            return
        }
        // Named after this process (the worker's parent), not the worker, which has ended.
        #expect(a.stagedFiles.count == 2)
        for path in a.stagedFiles {
            #expect(URL(fileURLWithPath: path).lastPathComponent.hasPrefix("\(ProcessInfo.processInfo.hostName)-\(getpid())-"), "\(path)")
        }
        // Another camlib opening the library sweeps abandoned temporaries: not these.
        let other = try Camlib.run(["query", "--library", library.root.path])
        #expect(other.status == 0, "\(other.stderr)")
        for path in a.stagedFiles { #expect(FileManager.default.fileExists(atPath: path), "\(path) was swept") }
        AnalysisOutcome.analyzed(a).discardStagedFiles()
    }
}
