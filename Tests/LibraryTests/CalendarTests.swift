import Foundation
import Testing
import TestSupport

@testable import Library

/// The timeline's calendar: the months the scrubber moves through and "On this day", read
/// from the capture index, as the captures' local dates say, outside the trash.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct CalendarTests {
    /// Every asset of the library with its local capture date ("2025-05-26").
    static func dates(_ library: PhotoLibrary) throws -> [(id: Int64, day: String)] {
        try library.describe(try library.assetIDs(matching: AssetQuery())).compactMap { asset in
            asset.capturedAt.map { (asset.id, String($0.prefix(10))) }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func theMonthsAreThoseHoldingAssetsNewestFirst(on backend: CatalogBackend) throws {
        let library = try CorpusLibrary.shared(on: backend).library
        let expected = Set(try Self.dates(library).map { String($0.day.prefix(7)) }).sorted(by: >)
        #expect(expected.count > 5)
        #expect(try library.captureMonths() == expected)
    }

    @Test(arguments: CatalogBackend.allCases) func aMonthEmptiedByTheTrashLeavesTheScrubber(on backend: CatalogBackend) throws {
        let dir = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: dir.url.appendingPathComponent("lib"), catalogURL: try backend.newCatalogURL())
        _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo")])
        let dates = try Self.dates(library)
        let before = try library.captureMonths()
        #expect(before == Set(dates.map { String($0.day.prefix(7)) }).sorted(by: >))
        // A month whose every asset goes to the trash.
        let month = try #require(before.first)
        let ids = dates.filter { $0.day.hasPrefix(month) }.map(\.id)
        _ = try library.trash(ids)
        #expect(try library.captureMonths() == Array(before.dropFirst()))
    }

    @Test(arguments: CatalogBackend.allCases) func onThisDayGivesEachEarlierYearsAssetsOfThatDate(on backend: CatalogBackend) throws {
        let library = try CorpusLibrary.shared(on: backend).library
        let dates = try Self.dates(library)
        let days = Dictionary(grouping: dates, by: \.day)
        // Every asset is a memory of its own local date (not its UTC one: the corpus has
        // photos taken in the evening west of Greenwich) in every later year.
        for (monthDay, same) in Dictionary(grouping: dates, by: { String($0.day.dropFirst(5)) }) {
            let (m, d) = (Int(monthDay.prefix(2))!, Int(monthDay.suffix(2))!)
            let found = try library.memories(month: m, day: d, before: 3000)
            #expect(Set(found.flatMap(\.assets)) == Set(same.map(\.id)), "\(monthDay)")
        }
        // The day of the year the corpus has most, and every year it has that day in.
        let (day, _) = try #require(days.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) })
        let (month, dayOfMonth) = (Int(day.dropFirst(5).prefix(2))!, Int(day.suffix(2))!)
        let years = Set(dates.filter { $0.day.hasSuffix(day.suffix(6)) }.map { Int($0.day.prefix(4))! }).sorted(by: >)
        let newest = years[0]
        let memories = try library.memories(month: month, day: dayOfMonth, before: newest + 1)
        #expect(memories.map(\.year) == years)
        for memory in memories {
            #expect(memory.day == String(format: "%04d-%02d-%02d", memory.year, month, dayOfMonth))
            #expect(Set(memory.assets) == Set(days[memory.day]!.map(\.id)))
        }
        // This year's own photos are not a memory: only earlier years.
        #expect(try library.memories(month: month, day: dayOfMonth, before: newest).map(\.year) == Array(years.dropFirst()))
        // A day nothing was taken on.
        let empty = (1...28).map { String(format: "%02d-%02d", 1, $0) }.first { d in !dates.contains { $0.day.hasSuffix("-" + d) } }
        if let empty {
            #expect(try library.memories(month: 1, day: Int(empty.suffix(2))!, before: 3000).isEmpty)
        }
    }

    @Test func todayIsAnExistingDate() {
        #expect(Memory.date("2026-11-28")! == (2026, 11, 28))
        #expect(Memory.date("2024-02-29")! == (2024, 2, 29))
        for bad in ["2025-02-29", "2026-11-31", "2026-13-01", "2026-11", "26-11-28", "today", ""] {
            #expect(Memory.date(bad) == nil, "\(bad)")
        }
    }
}
