/// Small text helpers of camlib's tables.
extension String {
    var nonEmpty: String? { isEmpty ? nil : self }

    /// Followed by spaces up to `width` characters; as it is when longer. (Foundation's
    /// `padding(toLength:withPad:startingAt:)` goes through NSString: about 10 k
    /// instructions a call, more than half of what a 50-row table cost.)
    func padded(to width: Int) -> String {
        let missing = width - count
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }
}

extension String {
    /// As a terminal shows it safely: control characters (C0, DEL, C1) and the bidirectional
    /// controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) written out as
    /// `\n`, `\t`, `\e`, `\x7F`, `\u{9B}`, `\u{202E}`, so a file name cannot recolour the
    /// terminal, move its cursor, break a table's line or show its letters reversed
    /// (`photo\u{202E}gpj.exe`); a backslash stays as it is. `keeping`:
    /// controls to leave alone (a message's own line breaks). Fast when there is none.
    func terminalSafe(keeping: Set<Unicode.Scalar> = []) -> String {
        func isControl(_ s: Unicode.Scalar) -> Bool {
            s.value < 0x20 || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
                || s.value == 0x200E || s.value == 0x200F || s.value == 0x061C
        }
        guard unicodeScalars.contains(where: { isControl($0) && !keeping.contains($0) }) else { return self }
        var out = ""
        for s in unicodeScalars {
            guard isControl(s), !keeping.contains(s) else {
                out.unicodeScalars.append(s)
                continue
            }
            switch s {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            default: out += s.value < 0x80 ? "\\x" + String(format: "%02X", s.value) : "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }
}

/// "1 asset", "3 assets" (`plural` when not just an s more: "1 was", "2 were").
func counted(_ n: Int, _ singular: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}
