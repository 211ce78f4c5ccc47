import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// The search box's text: dates and words read as a person means them, every one of which
/// must hold, found through either plan of a listing, with suggestions from the names the
/// library holds.
struct SearchTests {
    @Test func datesAndWordsAreReadAsAPersonMeansThem() {
        func days(_ text: String) -> [String] { SearchTerms(parsing: text).days.map { "\($0.first)…\($0.last)" } }
        #expect(days("2023") == ["2023-01-01…2023-12-31"])
        #expect(days("May 2025") == ["2025-05-01…2025-05-31"])
        #expect(days("2025 may") == ["2025-05-01…2025-05-31"])
        #expect(days("feb 2024") == ["2024-02-01…2024-02-29"])
        #expect(days("2025-05") == ["2025-05-01…2025-05-31"])
        #expect(days("2025-05-26") == ["2025-05-26…2025-05-26"])
        #expect(days("2025-02-30").isEmpty && SearchTerms(parsing: "2025-02-30").words == ["2025-02-30"])
        #expect(days("12345").isEmpty && SearchTerms(parsing: "IMG_2023").words == ["IMG_2023"])
        let lone = SearchTerms(parsing: "beach May")
        #expect(lone.months == [5] && lone.words == ["beach", "May"] && lone.days.isEmpty)
        let quoted = SearchTerms(parsing: #"  "new york" 2023 apple "#)
        #expect(quoted.words == ["new york", "apple"] && quoted.days.count == 1)
        #expect(SearchTerms(parsing: "   ").isEmpty)
    }

    /// Names are folded as Foundation folds them (case, accents, widths), ASCII ones by a
    /// shorter way that must agree.
    @Test func namesFoldAsFoundationFoldsThem() {
        let names = ["New York City", "LISBON", "São Paulo", "Kraków", "Hyōgo", "Ｔｏｋｙｏ", "Straße", "", "IMG_3582.HEIC", "f/1.78", "Île-de-France"]
        for name in names {
            #expect(PlaceMatching.fold(name) == name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil), "\(name)")
        }
        #expect(PlaceMatching.fold("São Paulo") == "sao paulo" && PlaceMatching.fold("Ｔｏｋｙｏ") == "tokyo")
        let folded = PlaceMatching.folded([
            PlaceRecord(id: 1, name: PlaceName(city: "Évora", region: "Évora", country: "Portugal", countryCode: "PT")),
            PlaceRecord(id: 2, name: PlaceName(city: nil, region: "Évora", country: "Portugal", countryCode: "PT")),
        ])
        #expect(folded.map { String(decoding: $0.names, as: UTF8.self) } == ["evora\tevora\tportugal", "evora\tportugal"])
        // A word matches from the start of a word of the name, after any character not a letter.
        for (name, words, found) in [
            ("new york city", "york", true), ("lisbon", "bon", false), ("cote d’ivoire", "ivoire", true), ("saint-etienne", "etienne", true),
            ("hyogo", "hyogo", true), ("xalapa", "alapa", false), ("sao paulo", "paulo", true), ("lodz", "", false), ("ab", "abc", false),
        ] {
            #expect(PlaceMatching.matches(name, words: words) == found, "\(words) in \(name)")
        }
    }

    static func names(_ library: PhotoLibrary, _ text: String, threshold: Int? = nil) throws -> Set<String> {
        var query = AssetQuery()
        query.search = text
        let ids: [Int64]
        if let threshold {
            ids = try library.catalog.read { db in try AssetListing(query: query, threshold: threshold).ids(db) }
        } else {
            ids = try library.assetIDs(matching: query)
        }
        return Set(try library.describe(ids).compactMap { $0.primaryOriginal?.originalName })
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func searchesFindWhatEachWordAndDateSays(on backend: CatalogBackend) throws {
        let library = try CorpusLibrary.shared(on: backend).library
        let all = try library.describe(try library.assetIDs(matching: AssetQuery()))
        func expected(_ keep: (AssetDescription) -> Bool) -> Set<String> { Set(all.filter(keep).compactMap { $0.primaryOriginal?.originalName }) }
        let cases: [(String, Set<String>)] = [
            // A year and a camera's make.
            ("2025 apple", ["IMG_3582.HEIC", "IMG_4076.HEIC", "IMG_4394.HEIC"]),
            // A town, a region with a year and a day.
            ("huntsville", ["IMG_4394.HEIC"]),
            ("Alabama 2021", ["2021-02-13-1929.heic"]),
            ("lublin 2022-11-30", ["heic_depth_data.heic"]),
            // A camera model as one quoted word, a lens, a part of a file name.
            (#""iphone 15""#, expected { $0.model?.contains("iPhone 15") == true }),
            ("f/1.78", expected { $0.lensModel?.contains("f/1.78") == true }),
            ("img_35", expected { $0.resources.contains { $0.originalName?.lowercased().contains("img_35") == true } }),
            // A month of any year.
            ("may", expected { $0.capturedAt.map { Array($0)[5...6] == ["0", "5"] } == true }),
            // A day is the photo's local date: this one was taken at 21:38 in California,
            // on the 13th in UTC.
            ("2024-01-12", expected { $0.capturedAt?.hasPrefix("2024-01-12") == true }),
            ("2024-01-13", []),
            ("Atlantis", []),
        ]
        for (text, wanted) in cases {
            #expect(!wanted.isEmpty || ["Atlantis", "2024-01-13"].contains(text), "\(text): the corpus has none to find")
            // Both plans: scanning the order, and starting from a word's candidates.
            for threshold in [nil, 0, 1_000_000] {
                #expect(try Self.names(library, text, threshold: threshold) == wanted, "\(text), threshold \(threshold.map(String.init) ?? "chosen")")
            }
        }
    }

    /// A month of any year, in capture order, is read month by month from the capture
    /// index and merged with the word's other meanings when a scan of the order would
    /// pass more assets than the threshold before the month comes round: pages of one
    /// asset, by cursor, in both directions and by either plan, list what the scan lists.
    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func aMonthOfAnyYearIsReadYearByYear(on backend: CatalogBackend) throws {
        let dir = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: dir.url.appendingPathComponent("lib"), catalogURL: try backend.newCatalogURL())
        _ = try Importer(library: library).run(paths: [Media.root.path])
        // The newest asset (August 2025) is found by a keyword, not by its month.
        var newestFirst = AssetQuery()
        newestFirst.descending = true
        let newest = try #require(try library.assetIDs(matching: newestFirst).first)
        _ = try library.addKeyword("Janus", to: [newest])
        // Thresholds: 1_000_000, always the scan; 2, the keyword's one asset is few
        // enough, and a scan passing three assets too long.
        for text in ["jan", "jan apple", "may"] {
            for descending in [false, true] {
                var query = AssetQuery()
                (query.search, query.descending) = (text, descending)
                let scanned = try library.catalog.read { db in try AssetListing(query: query, threshold: 0).ids(db) }
                #expect(scanned.count > 1, "\(text): the corpus has too few to find")
                if text == "jan" { #expect(scanned.contains(newest), "\(scanned)") }
                query.limit = 1
                for threshold in [2, 1_000_000] {
                    var paged: [Int64] = []
                    var page = query
                    while true {
                        var entries: [AssetListing.Entry] = []
                        try library.catalog.read { db in try AssetListing(query: page, threshold: threshold).forEach(db) { entries.append($0); return true } }
                        guard let last = entries.last else { break }
                        paged += entries.map(\.id)
                        page.after = last.cursor
                    }
                    #expect(paged == scanned, "\(text), \(descending ? "newest" : "oldest") first, threshold \(threshold)")
                }
            }
        }
        guard backend == .sqlite else { return }
        // Which plan: the months' parts, each read from the capture index by its range,
        // when the scan would be long; the scan when the month comes round soon enough.
        func statements(_ text: String, threshold: Int, descending: Bool) throws -> [String] {
            var query = AssetQuery()
            (query.search, query.limit, query.descending) = (text, 1, descending)
            return try library.catalog.sqliteRead { db -> [String] in
                var statements: [String] = []
                db.trace { statements.append($0.expandedDescription) }
                _ = try AssetListing(query: query, threshold: threshold).ids(db)
                db.trace(options: [], nil)
                return statements
            }
        }
        // January, newest first: four assets of 2025 come before it.
        let merged = try #require(try statements("jan", threshold: 2, descending: true).first { $0.contains("AS part0 UNION") })
        let plan = try library.catalog.sqliteRead { db in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + merged).map { $0["detail"] as String } }
        #expect(plan.contains { $0.contains("asset_summary_by_captured (captured_julian>? AND captured_julian<?)") }, "\(plan)")
        // Oldest first, one asset (May 2002) comes before January 2003.
        #expect(try statements("jan", threshold: 2, descending: false).allSatisfy { !$0.contains("UNION SELECT") })
        #expect(try statements("jan", threshold: 1_000_000, descending: true).allSatisfy { !$0.contains("UNION SELECT") })
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func keywordsAndAlbumsAreFoundByTheirWordsAndSuggested(on backend: CatalogBackend) throws {
        let dir = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: dir.url.appendingPathComponent("lib"), catalogURL: try backend.newCatalogURL())
        _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo")])
        let ids = try library.assetIDs(matching: AssetQuery())
        let named = Dictionary(uniqueKeysWithValues: try library.describe(ids).map { ($0.primaryOriginal!.originalName!, $0.id) })
        _ = try library.addKeyword("Sunset beach", to: [named["IMG_4394.HEIC"]!])
        _ = try library.createAlbum("Summer in Alabama")
        _ = try library.addToAlbum("Summer in Alabama", [named["IMG_3582.HEIC"]!, named["IMG_4394.HEIC"]!])
        for threshold in [nil, 0, 1_000_000] {
            #expect(try Self.names(library, "beach", threshold: threshold) == ["IMG_4394.HEIC"])
            #expect(try Self.names(library, "summer", threshold: threshold) == ["IMG_3582.HEIC", "IMG_4394.HEIC"])
            // Every word must hold: the album and the keyword.
            #expect(try Self.names(library, "summer sunset", threshold: threshold) == ["IMG_4394.HEIC"])
            #expect(try Self.names(library, "sun 2019", threshold: threshold).isEmpty)
        }
        // Suggestions: places, cameras, lenses, keywords and albums the library holds.
        let suggested = try library.searchSuggestions(for: "su")
        #expect(suggested.contains(SearchSuggestion(kind: .keyword, text: "Sunset beach")))
        #expect(suggested.contains(SearchSuggestion(kind: .album, text: "Summer in Alabama")))
        #expect(try library.searchSuggestions(for: "hunts") == [SearchSuggestion(kind: .place, text: "Huntsville")])
        let alabama = try library.searchSuggestions(for: "ALA")
        #expect(alabama.first == SearchSuggestion(kind: .place, text: "Alabama") && alabama.contains { $0.kind == .album })
        #expect(try library.searchSuggestions(for: "iphone").contains(SearchSuggestion(kind: .camera, text: "Apple iPhone 15 Pro")))
        #expect(try library.searchSuggestions(for: "f/1.7").contains { $0.kind == .lens && $0.text.hasSuffix("f/1.78") })
        #expect(try library.searchSuggestions(for: " ").isEmpty)
    }
}
