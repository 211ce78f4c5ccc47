import Foundation

/// Writing to the terminal: progress on stderr only when it is a terminal.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A message on stderr; control characters in it (from a file's name) written out,
    /// but its own line breaks kept.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.terminalSafe(keeping: ["\n"]) + "\n").utf8))
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Ctrl-C and SIGTERM as a request to stop: `handler` runs (on a global queue) instead of
/// the process dying, so the command can finish what it started. Keep the value alive
/// while the handling should last.
final class StopSignals {
    private let sources: [DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}

/// A one-line progress bar redrawn in place on stderr, at most ten times a second.
final class ProgressBar {
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private let started = Date()
    private let width = 28

    /// What `done` counts, for the rate: "files", "frames".
    private let unit: String

    init(enabled: Bool = Terminal.stderrIsTerminal, unit: String = "files") {
        self.enabled = enabled
        self.unit = unit
    }

    func update(done: Int, total: Int, item: String) {
        guard enabled else { return }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = Int(fraction * Double(width))
        let rate = Double(done) / max(now.timeIntervalSince(started), 0.001)
        var name = (item as NSString).lastPathComponent
        if name.count > 30 { name = String(name.prefix(27)) + "..." }
        let line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + "\(done)/\(total)  \(String(format: "%.1f", rate)) \(unit)/s  \(name)"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// Help text. Paragraphs are written hard-wrapped in the source; `reflow` makes each one a
/// single line so ArgumentParser wraps it to the screen (a source line longer than the
/// screen otherwise left a one-word line behind). Indented lines (examples, lists),
/// bullets, blank lines and the line after a colon stay as written.
enum Help {
    static func reflow(_ text: String) -> String {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let continues = !line.isEmpty && !line.hasPrefix(" ") && !line.hasPrefix("-") && !line.hasSuffix(":")
            if continues, let last = out.last, !last.isEmpty, !last.hasPrefix(" "), !last.hasSuffix(":") {
                out[out.count - 1] = last + " " + line
            } else {
                out.append(line)
            }
        }
        return out.joined(separator: "\n")
    }
}
