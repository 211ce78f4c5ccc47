import Foundation
import Synchronization

/// What the analysis of a file is doing, in words ("reading its XMP (Foundation's XML
/// parser)", "decoding image item 49 (libheif)"), so a worker that crashes is reported
/// with the step it was in instead of a guess. In an analysis worker each step is sent
/// to the import before it starts (a `step …` line); in-process it goes nowhere.
enum AnalysisStep {
    private static let sink = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Where steps go from now on (the worker sets it once, before any file).
    static func report(to sink: @escaping @Sendable (String) -> Void) {
        self.sink.withLock { $0 = sink }
    }

    /// The analysis is about to do `what`.
    static func begin(_ what: String) {
        sink.withLock { $0 }?(what)
    }

    /// The line a worker writes for a step.
    static func line(_ what: String) -> String { "step " + what.replacingOccurrences(of: "\n", with: " ") + "\n" }

    /// The step of such a line; nil for any other line (an outcome).
    static func parse(_ line: [UInt8]) -> String? {
        guard line.starts(with: Array("step ".utf8)) else { return nil }
        return String(decoding: line.dropFirst(5), as: UTF8.self)
    }
}
