/// The earlier years' assets taken on one day of the year: "On this day".
public struct Memory: Sendable, Equatable {
    /// The year they were taken in.
    public var year: Int
    /// The day, as the captures' local dates read: "2023-11-28".
    public var day: String
    /// Every asset captured that day outside the trash, oldest first.
    public var assets: [Int64]

    /// A date "2026-11-28" as year, month and day; nil for anything else ("2026-02-30").
    public static func date(_ text: String) -> (year: Int, month: Int, day: Int)? {
        guard text.count == 10, let days = SearchTerms.date(text) else { return nil }
        let parts = days.first.split(separator: "-").compactMap { Int($0) }
        return (parts[0], parts[1], parts[2])
    }
}

extension PhotoLibrary {
    /// The years in which assets were captured, newest first. One index probe per year
    /// between the first and the last, never a scan.
    public func captureYears() throws -> [Int] {
        try catalog.read { db in try AssetListing.captureYears(db) }
    }

    /// The months in which assets were captured, newest first, as "2025-05" (the
    /// captures' local dates): what the timeline's scrubber moves through. One index probe
    /// per month between the first and the last, never a scan.
    public func captureMonths() throws -> [String] {
        try catalog.read { db in try AssetListing.captureMonths(db) }
    }

    /// "On this day": for each year before `year` with assets captured on `month`-`day`
    /// (their local dates, as the timeline's days), those assets, newest year first. A 29
    /// February looks only in leap years.
    public func memories(month: Int, day: Int, before year: Int) throws -> [Memory] {
        try catalog.read { db in
            try AssetListing.captureYears(db).filter { $0 < year && day <= SearchTerms.daysIn(month, of: $0) }.compactMap { year in
                let date = String(format: "%04d-%02d-%02d", year, month, day)
                let ids = try AssetListing.capturedOn(date, db)
                return ids.isEmpty ? nil : Memory(year: year, day: date, assets: ids)
            }
        }
    }
}
