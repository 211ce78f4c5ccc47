import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// Listings read `asset_summary` by keyset; these tests hold them to what camlib listed
/// before (the `asset_overview` view, filtered and sorted as a whole), on the real corpus.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AssetListingTests {
    /// Every filter camlib query has, alone and combined, with values that match many,
    /// few and no assets of the corpus.
    static let filters: [(String, @Sendable (inout AssetQuery) -> Void)] = [
        ("everything", { _ in }),
        ("kind live", { $0.kinds = [.live] }),
        ("kinds photo+video", { $0.kinds = [.photo, .video] }),
        ("make apple", { $0.make = "apple" }),
        ("make a_l (LIKE's _ is literal)", { $0.make = "a_l" }),
        ("model 'iphone 1'", { $0.model = "iphone 1" }),
        ("make+model", { $0.make = "Apple"; $0.model = "15 Pro" }),
        ("make none such", { $0.make = "Hasselblad" }),
        ("make empty", { $0.make = "" }),
        ("since 2019", { $0.since = "2019-01-01" }),
        ("until bare date", { $0.until = "2019-12-29" }),
        ("since..until with offset", { $0.since = "2022-11-30T19:38:40+01:00"; $0.until = "2025-05-26T09:27:06.603-05:00" }),
        ("paired contentIdentifier", { $0.pairedBy = .contentIdentifier }),
        ("paired stem", { $0.pairedBy = .stem }),
        ("paired none", { $0.pairedBy = AssetQuery.PairedBy.none }),
        ("has depth", { $0.has = [.aux(.depth)] }),
        ("has disparity", { $0.has = [.aux(.disparity)] }),
        ("has glasses matte", { $0.has = [.aux(.glassesMatte)] }),
        ("has gain map + portrait matte", { $0.has = [.aux(.hdrGainMap), .aux(.portraitEffectsMatte)] }),
        ("has other", { $0.has = [.aux(.other)] }),
        ("has motion", { $0.has = [.motion] }),
        ("name prefix IMG_35*", { $0.name = "IMG_35*" }),
        ("name any case landscape_?.JPG", { $0.name = "landscape_?.JPG" }),
        ("name suffix *.mov", { $0.name = "*.mov" }),
        ("name none such", { $0.name = "DSC*" }),
        // The summary's names hold every file's name; a pattern must match one of them,
        // not run from a Live Photo's still into its movie (`IMG_3582.HEIC`, `IMG_3582.MOV`).
        ("name of a sidecar *.AAE", { $0.name = "*.AAE" }),
        ("name with a rare run *3582*", { $0.name = "*3582*" }),
        ("name with classes *[0-9]58[]2]*", { $0.name = "*[0-9]58[]2]*" }),
        ("name across two files *IMG_*IMG_*", { $0.name = "*IMG_*IMG_*" }),
        ("live + apple + since", { $0.kinds = [.live]; $0.make = "apple"; $0.since = "2020-01-01" }),
        ("photo + depth + name", { $0.kinds = [.photo]; $0.has = [.aux(.depth)]; $0.name = "*.heic" }),
    ]

    /// Favourites, two albums (one empty), two keywords and a trash, over the corpus's assets.
    static let organised = """
        INSERT INTO favorite SELECT id, '2026-01-01T00:00:00Z' FROM asset WHERE id % 2 = 0;
        INSERT INTO album (name, created_at) VALUES ('A', '2026-01-01T00:00:00Z'), ('empty', '2026-01-01T00:00:00Z');
        INSERT INTO album_asset SELECT 1, id, 100 - id, '2026-01-01T00:00:00Z' FROM asset WHERE id % 3 = 0;
        INSERT INTO keyword (name) VALUES ('k1'), ('k2');
        INSERT INTO asset_keyword SELECT 1, id FROM asset WHERE id % 5 = 0;
        INSERT INTO asset_keyword SELECT 2, id FROM asset WHERE id % 7 = 0 OR (id % 5 = 0 AND id % 2 = 0);
        INSERT INTO trashed_asset SELECT id, '2026-01-01T00:00:00Z' FROM asset WHERE id % 11 = 0;
        """

    static let orders: [(AssetQuery.Sort, Bool)] = AssetQuery.Sort.allCases.flatMap { [($0, false), ($0, true)] }

    @Test func listingsAgreeWithTheOverviewViewForEveryFilterOrderAndPlan() throws {
        let library = try CorpusLibrary.shared().library
        for (name, filter) in Self.filters {
            for (sort, descending) in Self.orders {
                var query = AssetQuery()
                filter(&query)
                query.sort = sort
                query.descending = descending
                let expected = try library.catalog.sqliteRead { db in try Self.overviewIDs(query, db) }
                // Scanning the order, starting from the filter, and as the planner chooses.
                for threshold in [0, 1_000_000, nil] {
                    let listed = try library.catalog.sqliteRead { db in try AssetListing(query: query, threshold: threshold).ids(db) }
                    #expect(listed == expected, "\(name), \(sort) \(descending ? "desc" : "asc"), threshold \(threshold.map(String.init) ?? "auto")")
                }
            }
        }
    }

    /// With a third of the assets in the trash (for the length of a transaction that is
    /// then rolled back): every listing leaves them out, whichever plan, and `--trashed`
    /// lists exactly them, under every filter and order.
    @Test func listingsLeaveTheTrashOutAndTrashedListsIt() throws {
        let library = try CorpusLibrary.shared().library
        struct RolledBack: Error {}
        #expect(throws: RolledBack.self) {
            try library.catalog.sqliteWrite { db in
                try db.execute(sql: "INSERT INTO trashed_asset SELECT id, '2026-01-01T00:00:00.000Z' FROM asset WHERE id % 3 = 0")
                let trashed = try Int.fetchOne(db, sql: "SELECT count(*) FROM trashed_asset")!
                #expect(trashed > 10)
                let trashedSummaries = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset_summary WHERE asset_id % 3 = 0")
                #expect(trashedSummaries == 0, "trashed assets are out of the summary")
                try Self.expectAgreementInAndOutOfTheTrash(Self.filters, db)
                // Restored, each is back as it was.
                try db.execute(sql: "DELETE FROM trashed_asset")
                let stale = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM asset_summary_source EXCEPT SELECT * FROM asset_summary)")
                let summaries = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset_summary")
                let assets = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset")
                #expect(stale == 0 && summaries == assets)
                throw RolledBack()
            }
        }
    }

    /// Favourites, albums, keywords and places (for the length of a transaction that is
    /// rolled back): every filter, alone and with others, in every order and plan.
    @Test func listingsAgreeForFavouritesAlbumsKeywordsAndPlaces() throws {
        let library = try CorpusLibrary.shared().library
        struct RolledBack: Error {}
        #expect(throws: RolledBack.self) {
            try library.catalog.sqliteWrite { db in
                try db.execute(sql: Self.organised)
                // Around a place the corpus has, wide and narrow, and where it has nothing.
                let here = try #require(try Row.fetchOne(db, sql: "SELECT latitude, longitude FROM metadata WHERE latitude IS NOT NULL ORDER BY resource_id LIMIT 1"))
                let (lat, lon): (Double, Double) = (here[0], here[1])
                let filters: [(String, @Sendable (inout AssetQuery) -> Void)] = [
                    ("favorite", { $0.favorite = true }),
                    ("album A", { $0.album = "A" }), ("album empty", { $0.album = "empty" }), ("album none such", { $0.album = "B" }),
                    ("keyword k1", { $0.keywords = ["k1"] }), ("keywords k1 k2", { $0.keywords = ["k1", "k2"] }), ("keyword none such", { $0.keywords = ["k3"] }),
                    ("near 5 km", { $0.near = .init(latitude: lat, longitude: lon, radius: 5000) }),
                    ("near 20,000 km", { $0.near = .init(latitude: lat, longitude: lon, radius: 2e7) }),
                    ("near the south pole", { $0.near = .init(latitude: -89.99, longitude: 0, radius: 100_000) }),
                    ("near the antimeridian", { $0.near = .init(latitude: 0, longitude: 179.99, radius: 50_000) }),
                    ("favorite + live + album", { $0.favorite = true; $0.kinds = [.live]; $0.album = "A" }),
                    ("keyword + since + near", { $0.keywords = ["k2"]; $0.since = "2019-01-01"; $0.near = .init(latitude: lat, longitude: lon, radius: 1e6) }),
                ]
                try Self.expectAgreementInAndOutOfTheTrash(filters, db)
                // The filters found something where they should.
                for name in ["favorite", "album A", "keyword k1", "near 5 km"] {
                    var query = AssetQuery()
                    filters.first { $0.0 == name }!.1(&query)
                    #expect(try !AssetListing(query: query).ids(db).isEmpty, "\(name)")
                }
                throw RolledBack()
            }
        }
    }

    @Test func limitsAgreeWithTheOverviewView() throws {
        let library = try CorpusLibrary.shared().library
        for (sort, descending) in Self.orders {
            for limit in [0, 1, 5, 1000] {
                var query = AssetQuery()
                (query.sort, query.descending, query.limit) = (sort, descending, limit)
                let expected = try library.catalog.sqliteRead { db in try Self.overviewIDs(query, db) }
                #expect(try library.assetIDs(matching: query) == expected, "\(sort) \(descending) limit \(limit)")
            }
        }
    }

    /// Started from a filter, a listing asks the order's index whether any asset lacks the
    /// key before reading the candidates again for them; the corpus has no asset without
    /// a name, so one is made for the length of a transaction that is then rolled back.
    @Test func anAssetWithoutANameIsListedWhicheverPlan() throws {
        let library = try CorpusLibrary.shared().library
        struct RolledBack: Error {}
        #expect(throws: RolledBack.self) {
            try library.catalog.sqliteWrite { db in
                let photos = try Int64.fetchAll(db, sql: "SELECT asset_id FROM asset_summary WHERE kind = 'photo' ORDER BY asset_id")
                let nameless = try #require(photos.first)
                try db.execute(sql: "UPDATE asset_summary SET sort_name = NULL WHERE asset_id = ?", arguments: [nameless])
                for threshold in [0, 1_000_000] {
                    for descending in [false, true] {
                        var query = AssetQuery()
                        (query.kinds, query.sort, query.descending) = ([.photo], .name, descending)
                        let listed = try AssetListing(query: query, threshold: threshold).ids(db)
                        // SQL's order: no name first ascending, last descending.
                        #expect((descending ? listed.last : listed.first) == nameless, "threshold \(threshold), descending \(descending)")
                        #expect(listed.sorted() == photos)
                    }
                }
                throw RolledBack()
            }
        }
        #expect(try library.catalog.sqliteRead { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM asset_summary WHERE sort_name IS NULL)") } == false)
    }

    /// A name's range is read in `asset_file_name`, where an asset comes once per matching
    /// file; asked for one row per asset wanted, a listing reads on past its first rows
    /// for every asset that has two (`IMG_3582.HEIC`, `IMG_3582.MOV`).
    @Test func aNameRangeListsEachAssetOnceWhateverItsFiles() throws {
        let library = try CorpusLibrary.shared().library
        let doubled = try library.catalog.sqliteRead { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT asset_id FROM asset_file_name WHERE lower_name GLOB 'img_*' GROUP BY asset_id HAVING count(*) > 1)")!
        }
        #expect(doubled >= 3, "the corpus has assets with two files named IMG_…")
        for (sort, descending) in Self.orders {
            var query = AssetQuery()
            (query.name, query.sort, query.descending) = ("IMG_*", sort, descending)
            let whole = try library.catalog.sqliteRead { db in try Self.overviewIDs(query, db) }
            for limit in [1, 2, 5, whole.count - 1] {
                query.limit = limit
                let listed = try library.catalog.sqliteRead { db in try AssetListing(query: query, threshold: 1_000_000, rowsPerAsset: 1).ids(db) }
                #expect(listed == Array(whole.prefix(limit)), "\(sort) \(descending ? "desc" : "asc") limit \(limit)")
            }
            // Page by page, one asset a page.
            query.limit = 1
            var paged: [Int64] = []
            while paged.count <= whole.count {
                var entries: [AssetListing.Entry] = []
                try library.catalog.sqliteRead { db in
                    try AssetListing(query: query, threshold: 1_000_000, rowsPerAsset: 1).forEach(db) { entries.append($0); return true }
                }
                guard let last = entries.last else { break }
                paged.append(last.id)
                query.after = last.cursor
            }
            query.after = nil
            #expect(paged == whole, "pages, \(sort) \(descending ? "desc" : "asc")")
        }
        // Read in the table itself, its rows not looked up in the summary.
        var query = AssetQuery()
        (query.name, query.limit) = ("IMG_35*", 50)
        let plan = try Self.plan(of: AssetListing(query: query, threshold: 1_000_000), reading: "FROM asset_file_name s", in: library)
        #expect(plan.contains { $0.contains("SEARCH s USING PRIMARY KEY (lower_name>? AND lower_name<?)") }, "\(plan)")
        #expect(plan.allSatisfy { !$0.contains("asset_summary") }, "\(plan)")
    }

    @Test func pagesByCursorListEveryAssetOnceInOrder() throws {
        let library = try CorpusLibrary.shared().library
        for (name, filter) in Self.filters.prefix(8) + Self.filters.filter({ $0.0.hasPrefix("has depth") }) {
            for (sort, descending) in Self.orders {
                var query = AssetQuery()
                filter(&query)
                (query.sort, query.descending) = (sort, descending)
                let whole = try library.assetIDs(matching: query)
                var paged: [Int64] = []
                query.limit = 3
                while true {
                    var page: [AssetDescription] = []
                    let next = try library.assets(matching: query) { page += $0 }
                    paged += page.map(\.id)
                    #expect(page.allSatisfy { $0.cursor != nil })
                    guard let next else { break }
                    #expect(next.description == page.last?.cursor)
                    query.after = next
                }
                #expect(paged == whole, "\(name), \(sort) \(descending ? "desc" : "asc")")
            }
        }
    }

    @Test func aCursorIsTextThatComesBackTheSame() throws {
        let cursors = [
            AssetCursor(sort: .captured, descending: false, key: .number(2_460_822.102152777), id: 12),
            AssetCursor(sort: .captured, descending: true, key: nil, id: 9),
            AssetCursor(sort: .name, descending: false, key: .text("img_3582.heic / \"quoted\" ünïcode"), id: 3),
            AssetCursor(sort: .imported, descending: true, key: .text("2026-11-22T10:15:30.123Z"), id: .max),
            AssetCursor(sort: .id, descending: false, key: nil, id: 1),
        ]
        for cursor in cursors {
            let text = cursor.description
            #expect(text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "\(text)")
            #expect(AssetCursor(text) == cursor)
            // The text is base64url of the JSON JSONEncoder writes for the cursor.
            var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(Data(base64Encoded: base64) == (try encoder.encode(cursor)))
        }
        #expect(AssetCursor("not a cursor") == nil && AssetCursor("") == nil)
    }

    @Test func aCursorOfAnotherOrderIsRefused() throws {
        let library = try CorpusLibrary.shared().library
        var query = AssetQuery()
        query.sort = .name
        query.after = AssetCursor(sort: .captured, descending: true, key: .number(2_459_000.5), id: 3)
        #expect(throws: LibraryError.cursorOfAnotherOrder(sort: "captured", descending: true)) { try library.assetIDs(matching: query) }
    }

    @Test func theSummaryAgreesWithTheTablesItIsMadeFrom() throws {
        try CatalogChecks.expectSummaryAgrees(try CorpusLibrary.shared().library)
    }

    @Test func listingsReadIndexesNotTheWholeCatalog() throws {
        let library = try CorpusLibrary.shared().library
        var query = AssetQuery()
        query.descending = true
        query.limit = 50
        query.after = AssetCursor(sort: .captured, descending: true, key: .number(2_459_000.5), id: .max)
        let plan = try Self.plan(of: AssetListing(query: query, threshold: 0), reading: "FROM asset_summary s", in: library)
        #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") && !$0.contains("TEMP B-TREE") }, "\(plan)")
    }

    /// A date range alone, by name or id, is read in the narrow index of capture time, name
    /// and id (0012); with another filter, in the wide one that carries every filter column.
    @Test func aDateRangeAloneIsReadInTheNarrowIndex() throws {
        let library = try CorpusLibrary.shared().library
        for sort in [AssetQuery.Sort.name, .id] {
            var query = AssetQuery()
            (query.since, query.until, query.sort, query.limit) = ("2019-01-01", "2025-12-31", sort, 50)
            let alone = try Self.plan(of: AssetListing(query: query, threshold: 1_000_000), reading: "SELECT s.asset_id", in: library)
            #expect(alone.contains { $0.contains("COVERING INDEX asset_summary_by_captured_name (captured_julian>? AND captured_julian<?)") }, "\(sort): \(alone)")
            // A filter with no index of its own: the range is still where the listing starts.
            query.pairedBy = AssetQuery.PairedBy.none
            let withAnother = try Self.plan(of: AssetListing(query: query, threshold: 1_000_000), reading: "SELECT s.asset_id", in: library)
            #expect(withAnother.contains { $0.contains("COVERING INDEX asset_summary_by_captured (captured_julian>? AND captured_julian<?)") }, "\(sort): \(withAnother)")
        }
    }

    /// SQLite's plan for the statement of `listing` that holds `marker`, as run.
    static func plan(of listing: AssetListing, reading marker: String, in library: PhotoLibrary) throws -> [String] {
        let trace = try library.catalog.sqliteRead { db -> [String] in
            var statements: [String] = []
            db.trace { statements.append($0.expandedDescription) }
            _ = try listing.ids(db)
            db.trace(options: [], nil)
            return statements
        }
        let statement = try #require(trace.first { $0.contains(marker) })
        return try library.catalog.sqliteRead { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement).map { $0["detail"] as String }
        }
    }

    /// What `camlib query` selected before the summary table: the old statement over the
    /// `asset_overview` view, the oracle for every listing.
    /// Every filter in every order, in and out of the trash, by each plan, agrees with
    /// the overview oracle.
    static func expectAgreementInAndOutOfTheTrash(
        _ filters: [(String, @Sendable (inout AssetQuery) -> Void)], _ db: Database, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, filter) in filters {
            for (sort, descending) in orders {
                for inTrash in [false, true] {
                    var query = AssetQuery()
                    filter(&query)
                    (query.sort, query.descending, query.trashed) = (sort, descending, inTrash)
                    let expected = try overviewIDs(query, db)
                    for threshold in [0, 1_000_000, nil] {
                        let listed = try AssetListing(query: query, threshold: threshold).ids(db)
                        #expect(
                            listed == expected, "\(name), \(sort) \(descending ? "desc" : "asc"), trashed \(inTrash), threshold \(threshold.map(String.init) ?? "auto")",
                            sourceLocation: sourceLocation)
                    }
                }
            }
        }
    }

    /// Assets whose still or movie was taken within the place's radius (haversine on
    /// the mean-radius sphere).
    static func assetsNear(_ place: AssetQuery.Place, _ db: Database) throws -> Set<Int64> {
        let rows = try Row.fetchAll(
            db, sql: """
                SELECT r.asset_id, m.latitude, m.longitude FROM resource r JOIN metadata m ON m.resource_id = r.id
                WHERE r.role IN ('photo', 'pairedVideo', 'video') AND m.latitude IS NOT NULL AND m.longitude IS NOT NULL
                """)
        func radians(_ d: Double) -> Double { d * .pi / 180 }
        var near: Set<Int64> = []
        for row in rows {
            let (lat, lon): (Double, Double) = (row[1], row[2])
            let a = pow(sin(radians(lat - place.latitude) / 2), 2)
                + cos(radians(place.latitude)) * cos(radians(lat)) * pow(sin(radians(lon - place.longitude) / 2), 2)
            if 6_371_008.8 * 2 * asin(min(1, a.squareRoot())) <= place.radius { near.insert(row[0]) }
        }
        return near
    }

    static func overviewIDs(_ q: AssetQuery, _ db: Database) throws -> [Int64] {
        var conditions: [String] = []
        var args: [DatabaseValueConvertible?] = []
        if !q.kinds.isEmpty {
            conditions.append("kind IN (\(databaseQuestionMarks(count: q.kinds.count)))")
            args += q.kinds.map(\.rawValue)
        }
        for (column, value) in [("make", q.make), ("model", q.model)] {
            guard let value else { continue }
            conditions.append("\(column) LIKE ? ESCAPE '\\'")
            args.append(SQLPattern.contains(value))
        }
        if let since = q.since {
            conditions.append("julianday(captured_at) >= julianday(?)")
            args.append(since)
        }
        if let until = q.until {
            conditions.append(CatalogDates.isBareDate(until) ? "julianday(captured_at) < julianday(?, '+1 day')" : "julianday(captured_at) <= julianday(?)")
            args.append(until)
        }
        switch q.pairedBy {
        case .none?: conditions.append("paired_by IS NULL")
        case .some(let rule):
            conditions.append("paired_by = ?")
            args.append(rule.rawValue)
        case nil: break
        }
        for feature in q.has {
            switch feature {
            case .motion: conditions.append("kind = 'motion'")
            case .aux(let type):
                let types = type == .depth ? ["depth", "disparity"] : [type.rawValue]
                conditions.append(
                    """
                    EXISTS (SELECT 1 FROM aux_image x JOIN current_resource r ON r.id = x.resource_id
                            WHERE x.asset_id = asset_overview.id AND x.type IN (\(databaseQuestionMarks(count: types.count))))
                    """)
                args += types
            }
        }
        if let name = q.name {
            conditions.append("EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = asset_overview.id AND lower(r.original_name) GLOB lower(?))")
            args.append(name)
        }
        let dir = q.descending ? "DESC" : "ASC"
        let order =
            switch q.sort {
            case .captured: "captured_at IS NULL, julianday(captured_at) \(dir), id \(dir)"
            case .imported: "imported_at \(dir), id \(dir)"
            case .name: "lower(original_name) \(dir), id \(dir)"
            case .id: "id \(dir)"
            }
        conditions.append("id \(q.trashed ? "IN" : "NOT IN") (SELECT asset_id FROM trashed_asset)")
        if q.favorite { conditions.append("id IN (SELECT asset_id FROM favorite)") }
        if let album = q.album {
            conditions.append("id IN (SELECT x.asset_id FROM album_asset x JOIN album a ON a.id = x.album_id WHERE a.name = ?)")
            args.append(album)
        }
        for keyword in q.keywords {
            conditions.append("id IN (SELECT x.asset_id FROM asset_keyword x JOIN keyword k ON k.id = x.keyword_id WHERE k.name = ?)")
            args.append(keyword)
        }
        if let place = q.near {
            // Distances worked out here, not in SQL: the still's or the movie's place.
            let near = try Self.assetsNear(place, db)
            conditions.append(near.isEmpty ? "0" : "id IN (\(near.map(String.init).joined(separator: ",")))")
        }
        let sql = "SELECT id FROM asset_overview WHERE " + conditions.joined(separator: " AND ")
            + " ORDER BY " + order + (q.limit.map { " LIMIT \($0)" } ?? "")
        return try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(args.map { $0?.databaseValue ?? .null }))
    }
}

/// Checks of a catalog's derived tables, for tests that change a library; on either backend.
enum CatalogChecks {
    /// `asset_summary` holds exactly what its triggers derive from the tables.
    static func expectSummaryAgrees(_ library: PhotoLibrary, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let count = { (sql: CatalogSQL) throws -> Int in try library.catalog.read { db in try db.fetchOne(Int.self, sql) } ?? -1 }
        let stale = try count("SELECT count(*) FROM (SELECT * FROM asset_summary EXCEPT SELECT * FROM asset_summary_source) AS x")
        let missing = try count("SELECT count(*) FROM (SELECT * FROM asset_summary_source EXCEPT SELECT * FROM asset_summary) AS x")
        // Trashed assets are left out of the summary (0013).
        let assets = try count("SELECT count(*) FROM asset WHERE id NOT IN (SELECT asset_id FROM trashed_asset)")
        let summaries = try count("SELECT count(*) FROM asset_summary")
        #expect(stale == 0 && missing == 0 && assets == summaries, "summary: \(stale) stale, \(missing) missing, \(summaries) rows for \(assets) assets", sourceLocation: sourceLocation)
        // resource.lower_name (0009), kept by triggers too: the ASCII letters of the name in lower case.
        let lower = library.catalog.isPostgres ? "ascii_lower" : "lower"
        let names = try count("SELECT count(*) FROM resource WHERE lower_name IS NOT NULL")
        let wrongNames = try count(CatalogSQL(sql: "SELECT count(*) FROM resource WHERE lower_name <> \(lower)(original_name) OR (lower_name IS NULL) <> (original_name IS NULL)"))
        #expect(names > 0 && wrongNames == 0, "\(wrongNames) of the resources' lower-case names are wrong", sourceLocation: sourceLocation)
        // asset_file_name (0011): every named file, with its asset's summary columns.
        let derived = """
            SELECT \(lower)(r.original_name), r.id, r.asset_id, s.kind, s.captured_julian, s.imported_at, s.camera_id,
                   s.sort_name, s.paired_by, s.aux_types, s.edited
            FROM resource r LEFT JOIN asset_summary s ON s.asset_id = r.asset_id WHERE r.original_name IS NOT NULL
            """
        let staleNames = try count(CatalogSQL(sql: "SELECT count(*) FROM (SELECT * FROM asset_file_name EXCEPT \(derived)) AS x"))
        let missingNames = try count(CatalogSQL(sql: "SELECT count(*) FROM (\(derived) EXCEPT SELECT * FROM asset_file_name) AS x"))
        #expect(staleNames == 0 && missingNames == 0, "file names: \(staleNames) stale, \(missingNames) missing", sourceLocation: sourceLocation)
        // The trigram index of the summary's names (0010) holds what the summary holds:
        // FTS5's own check throws when it does not. (PostgreSQL's index is its own.)
        guard !library.catalog.isPostgres else { return }
        #expect(throws: Never.self, "the names' trigram index disagrees with the summary", sourceLocation: sourceLocation) {
            try library.catalog.write { db in
                try db.execute("INSERT INTO asset_summary_names (asset_summary_names, rank) VALUES ('integrity-check', 1)")
            }
        }
    }
}
