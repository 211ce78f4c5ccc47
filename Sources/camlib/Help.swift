import Foundation

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
