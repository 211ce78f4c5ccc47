import Foundation

/// Writing to the terminal: progress on stderr only when it is a terminal.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A message on stderr; control characters in it (from a file's name) written out,
    /// but its own line breaks kept.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.terminalSafe(keeping: ["\n"]) + "\n").utf8))
    }

    /// `value` as one line of JSON, its keys in order (a line of `--json` events).
    static func jsonLine<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
