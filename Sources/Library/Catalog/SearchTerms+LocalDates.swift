/// Capture dates as people read them: local dates ("2025-05-01"), the camera's clock
/// where it was, as the timeline's days, the scrubber's months and a search's dates are.
/// The capture index keeps UTC Julian days, which put a local date at most 14 hours
/// either side of itself: the index is read from a day before the span to a day after
/// it, and each row's own local date (the first ten characters of its `captured_at`) is
/// then checked.
extension SearchTerms.Days {
    /// One local date.
    init(day: String) {
        self.init(first: day, last: day)
    }

    /// The capture index's bounds for the span (Julian days, UTC, the high one excluded).
    var captureIndexBounds: (low: Double, high: Double) {
        (Self.julianDay(first) - 1, Self.julianDay(last) + 2)
    }

    /// The same bounds as conditions on `captured_julian`, named with `prefix` ("s.").
    func captureIndexRange(_ prefix: String = "") -> [CatalogSQL] {
        let column = CatalogSQL(sql: prefix + "captured_julian")
        return ["\(column) >= julianday(\(first)) - 1", "\(column) < julianday(\(last)) + 2"]
    }

    /// Each row's own local date within the span, its `captured_at` named with `prefix`.
    func localDateCheck(_ prefix: String = "") -> CatalogSQL {
        "substr(\(CatalogSQL(sql: prefix + "captured_at")), 1, 10) BETWEEN \(first) AND \(last)"
    }

    /// The Julian day of `date` ("2025-05-01") at 00:00 UTC, as SQLite's `julianday`.
    static func julianDay(_ date: String) -> Double {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        let (y, m, d) = (parts[0], parts[1], parts[2])
        let a = (14 - m) / 12, yy = y + 4800 - a, mm = m + 12 * a - 3
        let day = d + (153 * mm + 2) / 5 + 365 * yy + yy / 4 - yy / 100 + yy / 400 - 32045
        return Double(day) - 0.5
    }
}
