import Foundation

/// The search box's text (`camlib query --search`, the gallery's `q=`) read as what a
/// person means: dates ("2023", "May 2025", "2025-05-26", "may") and words, every one of
/// which must hold. A word matches a file name (any part of it), a camera's make or model,
/// a lens, a keyword, an album or a place (city, region, country) of the asset: any one of
/// them. "quoted words" are one word: `"new york"`.
public struct SearchTerms: Sendable, Equatable {
    /// A span of days, both included: "2023" is 2023-01-01 to 2023-12-31.
    public struct Days: Sendable, Equatable {
        public var first: String
        public var last: String
    }

    /// The days every asset must be captured within (the dates given, intersected).
    public var days: [Days] = []
    /// Months named without a year ("may"): captured in one of them, any year (each such
    /// month is also tried as a word).
    public var months: [Int] = []
    /// The words, as typed (case kept), each to be matched.
    public var words: [String] = []

    public var isEmpty: Bool { days.isEmpty && months.isEmpty && words.isEmpty }

    static let monthNames = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
    ]

    /// The month a word names: its English name, or its first three letters (`sept` too).
    static func month(_ word: String) -> Int? {
        let w = word.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".,"))
        guard w.count >= 3 else { return nil }
        if let i = monthNames.firstIndex(where: { $0 == w || ($0.hasPrefix(w) && w.count <= 4) }) { return i + 1 }
        return nil
    }

    public init(parsing text: String) {
        let tokens = Self.tokens(text)
        var i = 0
        while i < tokens.count {
            let (token, quoted) = tokens[i]
            defer { i += 1 }
            if quoted {
                words.append(token)
                continue
            }
            if let day = Self.date(token) {
                days.append(day)
                continue
            }
            if let month = Self.month(token) {
                // "May 2025", "2025 May": that month of that year.
                if i + 1 < tokens.count, !tokens[i + 1].quoted, let year = Self.year(tokens[i + 1].text) {
                    days.append(Self.month(month, of: year))
                    i += 1
                    continue
                }
                if let last = days.last, last.first.count == 10, last.first.hasSuffix("-01-01"), last.last.hasSuffix("-12-31"),
                    let year = Int(last.first.prefix(4)), i > 0, Self.year(tokens[i - 1].text) == year
                {
                    days[days.count - 1] = Self.month(month, of: year)
                    continue
                }
                months.append(month)
                words.append(token)
                continue
            }
            words.append(token)
        }
    }

    /// Words split at spaces, `"quoted words"` kept together.
    static func tokens(_ text: String) -> [(text: String, quoted: Bool)] {
        var out: [(String, Bool)] = []
        var current = "", inQuotes = false
        func finish(_ quoted: Bool) {
            let t = current.trimmingCharacters(in: .whitespaces)
            if !t.isEmpty { out.append((t, quoted)) }
            current = ""
        }
        for c in text {
            if c == "\"" {
                finish(inQuotes)
                inQuotes.toggle()
            } else if c.isWhitespace && !inQuotes {
                finish(false)
            } else {
                current.append(c)
            }
        }
        finish(inQuotes)
        return out
    }

    static func year(_ text: String) -> Int? {
        guard text.count == 4, text.allSatisfy(\.isASCII), let year = Int(text), (1800...2200).contains(year) else { return nil }
        return year
    }

    /// "2023", "2025-05", "2025-05-26" as days.
    static func date(_ text: String) -> Days? {
        if let year = year(text) { return Days(first: String(format: "%04d-01-01", year), last: String(format: "%04d-12-31", year)) }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let year = year(String(parts[0])), parts[1].count == 2, let month = Int(parts[1]),
            (1...12).contains(month)
        else { return nil }
        if parts.count == 2 { return Self.month(month, of: year) }
        guard parts[2].count == 2, let day = Int(parts[2]), (1...daysIn(month, of: year)).contains(day) else { return nil }
        let date = String(format: "%04d-%02d-%02d", year, month, day)
        return Days(first: date, last: date)
    }

    static func month(_ month: Int, of year: Int) -> Days {
        Days(first: String(format: "%04d-%02d-01", year, month), last: String(format: "%04d-%02d-%02d", year, month, daysIn(month, of: year)))
    }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
