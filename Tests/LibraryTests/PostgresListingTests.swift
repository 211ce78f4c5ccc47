import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// Listings written once for both backends: the corpus's catalog copied into PostgreSQL
/// lists the same assets, in the same order, with the same cursors, as SQLite, for every
/// filter, order and plan, in and out of the trash.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct PostgresListingTests {
    /// The corpus's catalog with favourites, albums, keywords and a trash, in SQLite and
    /// copied into a new database of the test cluster.
    final class Twins: Sendable {
        let scratch: ScratchDirectory
        let sqlite: Catalog
        let postgres: PostgresCatalog
        let place: (latitude: Double, longitude: Double)

        init() throws {
            scratch = try ScratchDirectory()
            let path = scratch.file("catalog.sqlite")
            try CorpusLibrary.shared().library.catalog.backup(to: path)
            sqlite = try Catalog(path: path, access: .readWrite(concurrent: false))
            try sqlite.sqliteWrite { db in try db.execute(sql: AssetListingTests.organised) }
            let here = try sqlite.sqliteRead { db in
                try Row.fetchOne(db, sql: "SELECT latitude, longitude FROM metadata WHERE latitude IS NOT NULL ORDER BY resource_id LIMIT 1")
            }
            let row = try #require(here)
            place = (row[0], row[1])
            let server = try PostgresServer.shared()
            postgres = try PostgresCatalog(location: PostgresLocation(url: server.url(database: server.createDatabase("listing"))))
            try CatalogCopy(source: sqlite, target: postgres).run()
        }

        deinit {
            try? sqlite.close()
            postgres.close()
        }

        /// Each asset of `listing` with its cursor as text, on each backend.
        func entries(_ listing: AssetListing) throws -> (sqlite: [String], postgres: [String]) {
            func read(_ db: any CatalogConnection) throws -> [String] {
                var entries: [String] = []
                try listing.forEach(db) { entries.append("\($0.id) \($0.cursor)"); return true }
                return entries
            }
            return (try sqlite.read { try read($0) }, try postgres.read { try read($0) })
        }
    }

    var filters: [(String, @Sendable (inout AssetQuery) -> Void)] {
        let more: [(String, @Sendable (inout AssetQuery) -> Void)] = [
            ("favorite", { $0.favorite = true }),
            ("album A", { $0.album = "A" }), ("album none such", { $0.album = "B" }),
            ("keywords k1 k2", { $0.keywords = ["k1", "k2"] }), ("keyword none such", { $0.keywords = ["k3"] }),
            ("name with an open class *[0-9", { $0.name = "*[0-9" }), ("name with a regex's signs *.(HEIC|MOV)", { $0.name = "*.(HEIC|MOV)" }),
            ("name with a backslash *\\*", { $0.name = "*\\*" }), ("name with a negated class IMG_[^0-2]*", { $0.name = "IMG_[^0-2]*" }),
        ]
        return AssetListingTests.filters + more
    }

    @Test func everyFilterOrderAndPlanListsTheSameAssetsAndCursors() throws {
        let twins = try Twins()
        let (lat, lon) = twins.place
        let places: [(String, @Sendable (inout AssetQuery) -> Void)] = [
            ("near 5 km", { $0.near = .init(latitude: lat, longitude: lon, radius: 5000) }),
            ("near 20,000 km", { $0.near = .init(latitude: lat, longitude: lon, radius: 2e7) }),
            ("near the south pole", { $0.near = .init(latitude: -89.99, longitude: 0, radius: 100_000) }),
            ("keyword + since + near", { $0.keywords = ["k2"]; $0.since = "2019-01-01"; $0.near = .init(latitude: lat, longitude: lon, radius: 1e6) }),
        ]
        var nonEmpty = 0
        for (name, filter) in filters + places {
            for (sort, descending) in AssetListingTests.orders {
                for trashed in [false, true] {
                    var query = AssetQuery()
                    filter(&query)
                    (query.sort, query.descending, query.trashed) = (sort, descending, trashed)
                    for threshold in [0, 1_000_000, nil] {
                        let (sqlite, postgres) = try twins.entries(AssetListing(query: query, threshold: threshold))
                        #expect(postgres == sqlite, "\(name), \(sort) \(descending ? "desc" : "asc"), trashed \(trashed), threshold \(threshold.map(String.init) ?? "auto")")
                        if !sqlite.isEmpty { nonEmpty += 1 }
                    }
                }
            }
        }
        // Most listings have assets to compare.
        #expect(nonEmpty > (filters.count + places.count) * AssetListingTests.orders.count * 3 / 2)
    }

    @Test func pagesContinueFromEitherBackendsCursors() throws {
        let twins = try Twins()
        for (sort, descending) in AssetListingTests.orders {
            var query = AssetQuery()
            (query.sort, query.descending, query.limit) = (sort, descending, 4)
            var pages = 0
            while true {
                let (sqlite, postgres) = try twins.entries(AssetListing(query: query))
                #expect(postgres == sqlite, "\(sort) \(descending ? "desc" : "asc"), page \(pages)")
                guard let last = sqlite.last, sqlite.count == 4 else { break }
                query.after = try #require(AssetCursor(String(last.split(separator: " ", maxSplits: 1)[1])))
                pages += 1
            }
            #expect(pages > 3)
        }
    }

    @Test func captureYearsAreTheSame() throws {
        let twins = try Twins()
        let sqlite = try twins.sqlite.sqliteRead { try AssetListing.captureYears($0) }
        #expect(sqlite.count > 3)
        #expect(try twins.postgres.read { try AssetListing.captureYears($0) } == sqlite)
    }

    /// The scrubber's months and a day's assets, by local dates read through the UTC
    /// capture index, on both backends.
    @Test func captureMonthsAndDaysAreTheSame() throws {
        let twins = try Twins()
        let months = try twins.sqlite.sqliteRead { try AssetListing.captureMonths($0) }
        #expect(months.count > 3)
        #expect(try twins.postgres.read { try AssetListing.captureMonths($0) } == months)
        for month in months.prefix(4) {
            for day in (1...31).map({ String(format: "%@-%02d", month, $0) }) {
                let sqlite = try twins.sqlite.sqliteRead { try AssetListing.capturedOn(day, $0) }
                #expect(try twins.postgres.read { try AssetListing.capturedOn(day, $0) } == sqlite, "\(day)")
            }
        }
        let someDay = try months.prefix(4).flatMap { month in
            try (1...31).map { String(format: "%@-%02d", month, $0) }.filter { day in
                try !twins.sqlite.sqliteRead { try AssetListing.capturedOn(day, $0) }.isEmpty
            }
        }
        #expect(!someDay.isEmpty, "the corpus has assets on some day of its newest months")
    }

    /// SQLite's GLOB and the PostgreSQL schema's `glob` agree, classes and signs included.
    @Test func globMatchesAsSQLitesDoes() throws {
        let twins = try Twins()
        let names = ["img_3582.heic", "IMG_3582.HEIC", "a*b", "a?b", "a[b", "a]b", "a\\b", "a.b", "a^b", "a-b", "ab", "", "é.jpg", "x\ny", "(a|b)", "a$"]
        let patterns = [
            "*", "?", "img_*", "*.heic", "IMG_35[0-9]2.*", "*[]]*", "*[^a-z]*", "[^]]*", "a[*]b", "a[?]b", "a\\b", "a.b", "a^b", "a[-]b", "a[b-]b",
            "*[", "a[b", "[a-c]b", "*x*y*", "(a|b)", "a$", "[é]*", "*[\\]*", "",
        ]
        for pattern in patterns {
            let sqlite = try twins.sqlite.sqliteRead { db in try names.filter { try Bool.fetchOne(db, sql: "SELECT ? GLOB ?", arguments: [$0, pattern]) ?? false } }
            let postgres = try twins.postgres.read { session in
                try names.filter { try session.fetchOne(Bool.self, "SELECT glob(\(pattern), \($0))") ?? false }
            }
            #expect(postgres == sqlite, "pattern \(pattern)")
        }
    }
}
