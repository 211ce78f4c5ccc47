import Codecs
import Foundation

/// One request to an analysis worker.
struct AnalysisRequest: Codable {
    var path: String
    var stagingDirectory: String
    /// The library's catalog, read (never written) to spot files it already holds.
    var catalogPath: String
    /// False: pictures without an embedded thumbnail are left to thumbnail jobs.
    var decodePictures = true
}

/// How files are analysed during an import.
public enum AnalysisIsolation: Sendable {
    /// In this process: fastest to start, but a crash in a C library ends the import.
    case inProcess
    /// In child processes running `EXECUTABLE analyze-worker`, taken from `workers`: a
    /// crash or hang costs only the file that caused it. What `camlib import` uses.
    case workerProcesses(AnalysisWorkers)
}

/// The child side: reads one JSON request per line on stdin, answers one JSON outcome
/// per line on stdout, until stdin closes.
public enum AnalysisWorker {
    public static func serve() {
        ChildProcess.limitMemory()
        ChildProcess.exitWithParent()
        AtomicFile.stageForParent()
        // Started before the import has work for it (see AnalysisWorkers): the libraries
        // load while the import opens its catalog, not during the first file.
        CodecLibraries.preload()
        // Each step goes out before it starts, unbuffered: if it crashes, the import knows.
        AnalysisStep.report { step in FileHandle.standardOutput.write(Data(AnalysisStep.line(step).utf8)) }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        var known: KnownOriginals?
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            let outcome: AnalysisOutcome
            if let request = try? decoder.decode(AnalysisRequest.self, from: Data(line.utf8)) {
                if known?.catalogPath != request.catalogPath { known = KnownOriginals(catalogPath: request.catalogPath) }
                outcome = MediaAnalyzer.analyze(
                    path: request.path, stagingDirectory: URL(fileURLWithPath: request.stagingDirectory),
                    isKnown: { known?.contains($0) ?? false }, decodePictures: request.decodePictures)
            } else {
                outcome = .failed(path: "?", reason: "camlib internal error: unreadable worker request")
            }
            var data = (try? encoder.encode(outcome)) ?? Data()
            data.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(data)
        }
    }
}

/// Something that turns a path into an outcome; one per analysis thread.
protocol Analyzer: AnyObject {
    func analyze(path: String, stagingDirectory: URL, catalogPath: String, timeLimit: Double, decodePictures: Bool) -> AnalysisOutcome
    func stop()
}

final class InProcessAnalyzer: Analyzer {
    private var known: KnownOriginals?

    func analyze(path: String, stagingDirectory: URL, catalogPath: String, timeLimit: Double, decodePictures: Bool) -> AnalysisOutcome {
        if known?.catalogPath != catalogPath { known = KnownOriginals(catalogPath: catalogPath) }
        return MediaAnalyzer.analyze(
            path: path, stagingDirectory: stagingDirectory, isKnown: { known?.contains($0) ?? false }, decodePictures: decodePictures)
    }
    func stop() {}
}
