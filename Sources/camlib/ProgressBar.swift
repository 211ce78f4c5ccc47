import Foundation

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
