import Foundation

/// UTC now, ISO 8601 with milliseconds: "2026-11-22T10:15:30.123Z", as the catalog's
/// `*_at` columns hold it.
func utcNow() -> String {
    catalogTime(Date())
}

/// A moment as the catalog's `*_at` columns hold it (see ``utcNow()``).
func catalogTime(_ date: Date) -> String {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: date)
}
