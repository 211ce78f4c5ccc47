import Containers
import Foundation
import GRDB

/// The assets an ``AssetQuery`` selects, in its order, read from `asset_summary` by
/// keyset: each step continues after the last asset's sort key and id, never by row
/// number, so no step reads what came before it and pages stay right while imports add
/// assets.
///
/// Two plans, chosen per listing from bounded counts:
/// - **scan the order**: walk the index of the sort key from the cursor on, testing each
///   asset's row against the filters, until enough match. Cheap when matches are common.
/// - **start from a filter**: when some filter that has an index of its own (kind,
///   camera, pairing, an auxiliary image type, a name with a literal start, a capture
///   date range) matches few assets, take those assets, test the other filters, sort
///   them. Cheap when matches are rare, where scanning the order would read the whole
///   catalog to find nothing. A date range is read and sorted in the capture index
///   itself, and a name's range in `asset_file_name` (0011): both carry every sort key
///   and filter column, so their assets are not looked up one by one. A date range is
///   counted, and read when it is the only filter and the order is by name or id, in
///   the capture index's narrow twin of time, name and id (0012).
/// Each candidate filter is counted up to a threshold (the count stops there), the
/// threshold being where both plans cost about the same: `sqrt(limit × assets)`, were
/// the matches spread evenly along the order. A date range, read from the capture index
/// that carries every sort key, is trusted with ``coveredRangeFactor`` times more. On
/// PostgreSQL a date range is not counted but estimated by the planner (`EXPLAIN`), from
/// its column's histogram.
struct AssetListing {
    let query: AssetQuery
    /// Tests only: a fixed count below which a filter is started from, instead of the
    /// one worked out from the limit and the catalog's size (0: always scan the order).
    var threshold: Int?
    /// Rows asked for per asset wanted from a table where an asset comes once per
    /// matching file (3: a Live Photo's still, movie and sidecar). Tests lower it to 1,
    /// so that reading on past the first rows is exercised.
    var rowsPerAsset: Int

    /// How many more candidates a date range may have than the threshold. Its candidates
    /// are a covering index's consecutive entries, cheap to read and sort, while the
    /// matches a scan of another order looks for are seldom spread evenly (a month sorted
    /// by name: reading and sorting the month beat scanning the name index by 4x;
    /// docs/performance.md).
    static let coveredRangeFactor = 4

    /// How many times more rows than a count's limit the planner must expect of an
    /// inexact candidate for it to go uncounted: its estimate for a name's run of three
    /// characters comes from a sample of a hundred names, and is often a few times off.
    static let plannedRowsFactor = 4

    /// The most rows a statement is read with ``CatalogConnection/forEachRow(_:_:)``, which
    /// on PostgreSQL receives them all first; more, or no limit, are read a page at a time.
    static let rowsHeldWhole = 2_000

    init(query: AssetQuery, threshold: Int? = nil, rowsPerAsset: Int = 3) {
        (self.query, self.threshold, self.rowsPerAsset) = (query, threshold, max(1, rowsPerAsset))
    }

    /// Where counting a candidate filter stops: `sqrt(wanted × assets)`, within 1,000 and
    /// 100,000. Asset ids are never reused, so the largest is about how many there are.
    private static func threshold(_ db: any CatalogConnection, wanted: Int) throws -> Int {
        let total = try db.fetchOne(Int.self, "SELECT coalesce(max(asset_id), 0) FROM asset_summary") ?? 0
        return min(100_000, max(1_000, Int((Double(min(wanted, total)) * Double(total)).squareRoot())))
    }

    /// One asset of the listing, with the cursor that continues after it.
    struct Entry {
        var id: Int64
        var cursor: AssetCursor
    }

    /// Calls `body` with each matching asset after the query's cursor, in order, up to its
    /// limit; stops early when `body` returns false. Reads one statement at a time, so
    /// memory stays flat however many assets match.
    func forEach(_ db: any CatalogConnection, _ body: (Entry) throws -> Bool) throws {
        if let after = query.after, after.sort != query.sort || after.descending != query.descending {
            throw LibraryError.cursorOfAnotherOrder(sort: after.sort.rawValue, descending: after.descending)
        }
        var remaining = query.limit ?? Int.max
        guard remaining > 0, let filters = try Filters(query, db) else { return }
        var driver: (cost: Int, candidate: Filters.Candidate, conditions: [CatalogSQL])?
        // The trash is read whole from its view (`trashed_summary`, 0013): it holds the
        // few assets a user has put there, none of them in the summary's indexes.
        let candidates = query.trashed ? [] : filters.drivers(sort: query.sort)
        // Without candidates nothing is counted: a listing in the order alone asks no more.
        let threshold = try self.threshold ?? (candidates.isEmpty ? 0 : Self.threshold(db, wanted: remaining))
        // An inexact candidate (weight over 1) is not counted once one that tests its filter
        // exactly (`replaces` it) is few enough: counting it then costs more than it saves.
        for (candidate, conditions) in candidates where !(candidate.weight > 1 && driver?.candidate.replaces != nil) {
            let limit = candidate.covering == nil ? threshold / candidate.weight : threshold * Self.coveredRangeFactor
            // A run of three characters that many names hold (".mo" of "*.mov") is not
            // counted where the planner expects far more than the limit: PostgreSQL's
            // trigram index gives every holder before a count can stop (25 ms at a
            // million assets). A rare run, expected few, is counted as ever.
            if candidate.weight > 1, let planned = try db.plannedRows(candidate.sql), planned > limit * Self.plannedRowsFactor { continue }
            // Estimated where that is close enough, unless a test fixed the threshold.
            let estimate = candidate.estimable && self.threshold == nil ? try db.plannedRows(candidate.sql) : nil
            let count = try estimate ?? db.fetchOne(Int.self, "SELECT count(*) FROM (\(candidate.sql) LIMIT \(limit + 1)) AS candidates") ?? 0
            // Compared by their cost: a covered range's candidates count for less.
            let cost = candidate.covering == nil ? count * candidate.weight : count / Self.coveredRangeFactor
            if count <= limit, cost < (driver?.cost ?? .max) { driver = (cost, candidate, conditions) }
        }
        // A word naming a month of any year, when nothing else is few enough to start from,
        // its other meanings are (counted as an inexact candidate is), and scanning the
        // order would pass more assets than that before the month comes round.
        var months: MonthArms?
        if driver == nil, !query.trashed, query.sort == .captured, remaining != .max, let word = filters.monthWords.first, let others = word.others,
            case let threshold = try self.threshold ?? Self.threshold(db, wanted: remaining), threshold > 0,
            try db.fetchOne(Int.self, "SELECT count(*) FROM (\(others) LIMIT \(threshold / 2 + 1)) AS candidates") ?? 0 <= threshold / 2
        {
            if try !MonthArms.scanReaches(word.month, after: query.after, descending: query.descending, within: threshold, db) {
                months = MonthArms(month: word.month, others: others, years: try Self.captureYears(db))
            }
        }
        let order = Order(query.sort, descending: query.descending, dialect: db.dialect)
        // In capture order, a date range leaves out the undated assets, the segment without a key.
        let dated = order.sort == .captured && query.isDated
        for segment in order.segments(after: query.after) where !(dated && segment.withoutKey) {
            // Started from a filter, the assets without the key are its candidates read
            // again; the order's index tells at once whether there are any at all.
            if segment.withoutKey, driver != nil, !query.trashed,
                try db.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM asset_summary s \(order.index) WHERE \(order.key) IS NULL)") != true
            {
                continue
            }
            let covering = driver?.candidate.covering
            let source: CatalogSQL =
                switch (driver, covering) {
                case _ where query.trashed: "trashed_summary s WHERE"
                case (_, let covering?): "\(covering.table) WHERE" + (covering.condition.map { " \($0) AND" } ?? "")
                case (let driver?, nil): "asset_summary s \(db.dialect.notIndexed) WHERE s.asset_id IN (\(driver.candidate.sql)) AND"
                case (nil, _): "asset_summary s \(order.index) WHERE"
                }
            var sql: CatalogSQL
            if let months, !segment.withoutKey {
                sql = months.statement(segment, filters.conditions, limit: remaining, order)
            } else {
                sql = "SELECT s.asset_id, \(order.key) FROM \(source) \(segment.condition)"
                for condition in driver?.conditions ?? filters.conditions { sql += " AND \(condition)" }
                sql += " ORDER BY \(segment.ordering)"
            }
            // An asset that comes once per matching file comes in consecutive rows (same
            // key, same id): the second is skipped. Rows are asked for with room for
            // repeats; should they not suffice, the statement is run again with more room,
            // past the rows already read (the order is total, so it gives them again).
            let repeats = covering?.repeats == true
            let room = repeats ? rowsPerAsset : 1
            var rowLimit = remaining == .max || remaining > Int.max / room ? nil : remaining * room
            var rowsRead = 0, previous: Int64?
            while true {
                var statement = sql
                if let rowLimit { statement += " LIMIT \(rowLimit)" }
                // Cached (on SQLite): a long-lived process lists with the same few statements again and again.
                var row = 0, done = false
                let take: (CatalogRow) throws -> Bool = { next in
                    row += 1
                    guard row > rowsRead else { return true }
                    rowsRead = row
                    guard let id: Int64 = next[0], id != previous else { return true }
                    previous = id
                    let key: AssetCursor.Key? =
                        switch order.sort {
                        case .captured: (next[1] as Double?).map { .number($0) }
                        case .imported, .name: (next[1] as String?).map { .text($0) }
                        case .id: nil
                        }
                    remaining -= 1
                    done = try !body(Entry(id: id, cursor: AssetCursor(sort: order.sort, descending: order.descending, key: key, id: id))) || remaining == 0
                    return !done
                }
                // A page at a time when the rows may be many (on PostgreSQL, through a cursor).
                if let rowLimit, rowLimit <= Self.rowsHeldWhole {
                    try db.forEachRow(statement, take)
                } else {
                    try db.forEachOfManyRows(statement, take)
                }
                if done { return }
                // The statement ran out before its limit: the segment is read whole.
                guard repeats, let limit = rowLimit, row == limit else { break }
                rowLimit = limit > Int.max / 4 ? nil : 4 * limit
            }
        }
    }

    /// A search with a word naming a month of any year ("may"), listed in capture order
    /// when none of its filters is few enough to start from. Scanning the order tests
    /// every asset until the month comes round (May, from the newest in December: 44,000
    /// assets of a million, 50 ms); instead each year's month is read from the capture
    /// index (a day either side: the index is UTC, the month the local date's) and the
    /// word's other meanings from their candidates, each part sorted and cut to the
    /// page, then merged. Every filter is tested in each part, the word's own too.
    struct MonthArms {
        var month: Int
        /// The candidates of the word's other meanings (file names, places, …).
        var others: CatalogSQL
        /// The years holding assets.
        var years: [Int]

        /// The capture index's range of `month` in `year` (Julian days, UTC): a day either
        /// side of its local dates.
        static func range(_ month: Int, _ year: Int) -> (low: Double, high: Double) {
            SearchTerms.month(month, of: year).captureIndexBounds
        }

        /// Whether a scan of the capture order from `cursor` comes to `month` (in the
        /// direction read) within `limit` assets, counted on the narrow capture index: then
        /// the scan, testing that few, is the cheaper plan (May from the oldest, 5,919
        /// assets on: 8 ms, where reading every year's May and merging took 14).
        static func scanReaches(_ month: Int, after cursor: AssetCursor?, descending: Bool, within limit: Int, _ db: any CatalogConnection) throws -> Bool {
            let start: Double
            switch cursor?.key {
            case .number(let key)?:
                start = key
            case nil where cursor == nil:
                // From the first asset read.
                let first = try db.fetchOne(
                    Double.self, descending ? "SELECT max(captured_julian) FROM asset_summary" : "SELECT min(captured_julian) FROM asset_summary")
                guard let first else { return true }
                start = first
            default:
                return true  // among the undated assets: the dated are read already
            }
            // The month's range next in the direction read: in the year of `start`, or one or two either side.
            let year = Int((start - 1_721_425.5) / 365.2425) + 1
            let ranges = (year - 2...year + 2).map { range(month, $0) }.sorted { descending ? $0.low > $1.low : $0.low < $1.low }
            guard let next = ranges.first(where: { descending ? $0.low <= start : $0.high > start }) else { return false }
            if descending ? start < next.high : start >= next.low { return true }  // inside it already
            // From the first asset, itself included; after a cursor, past it.
            let from: CatalogSQL =
                switch (descending, cursor == nil) {
                case (true, true): "captured_julian <= \(start)"
                case (true, false): "captured_julian < \(start)"
                case (false, true): "captured_julian >= \(start)"
                case (false, false): "captured_julian > \(start)"
                }
            let between: CatalogSQL = descending ? "captured_julian >= \(next.high) AND \(from)" : "captured_julian < \(next.low) AND \(from)"
            let index = db.dialect.indexedBy("asset_summary_by_captured_name")
            let passed = try db.fetchOne(Int.self, "SELECT count(*) FROM (SELECT 1 FROM asset_summary \(index) WHERE \(between) LIMIT \(limit + 1)) AS passed") ?? 0
            return passed <= limit
        }

        /// The statement for the dated segment; its caller appends the page's LIMIT.
        func statement(_ segment: Order.Segment, _ conditions: [CatalogSQL], limit: Int, _ order: Order) -> CatalogSQL {
            let tested = ([segment.condition] + conditions).joined(separator: " AND ")
            var parts: [CatalogSQL] = years.map { year in
                let (low, high) = Self.range(month, year)
                return """
                    SELECT s.asset_id, s.captured_julian FROM asset_summary s \(order.index) \
                    WHERE s.captured_julian >= \(low) AND s.captured_julian < \(high) AND \(tested)
                    """
            }
            parts.append("SELECT s.asset_id, s.captured_julian FROM asset_summary s \(order.dialect.notIndexed) WHERE s.asset_id IN (\(others)) AND \(tested)")
            let arms = parts.enumerated().map { i, part -> CatalogSQL in
                "SELECT * FROM (\(part) ORDER BY \(segment.ordering) LIMIT \(limit)) AS " + CatalogSQL(sql: "part\(i)")
            }
            return "SELECT s.asset_id, s.captured_julian FROM (\(arms.joined(separator: " UNION "))) AS s ORDER BY \(segment.ordering)"
        }
    }

    /// The ids of every matching asset, in order.
    func ids(_ db: any CatalogConnection) throws -> [Int64] {
        var ids: [Int64] = []
        try forEach(db) { ids.append($0.id); return true }
        return ids
    }

    /// The order of a listing over `asset_summary`: its key column, the index that keeps
    /// it, and its parts, since SQL sorts NULL first and camlib lists undated assets
    /// last whichever the direction.
    struct Order {
        let sort: AssetQuery.Sort
        let descending: Bool
        let dialect: CatalogDialect

        init(_ sort: AssetQuery.Sort, descending: Bool, dialect: CatalogDialect) {
            (self.sort, self.descending, self.dialect) = (sort, descending, dialect)
        }

        var key: CatalogSQL {
            switch sort {
            case .captured: "s.captured_julian"
            case .imported: "s.imported_at"
            case .name: "s.sort_name"
            case .id: "s.asset_id"
            }
        }

        var index: CatalogSQL {
            switch sort {
            case .captured: dialect.indexedBy("asset_summary_by_captured")
            case .imported: dialect.indexedBy("asset_summary_by_imported")
            case .name: dialect.indexedBy("asset_summary_by_name")
            case .id: dialect.notIndexed  // the table itself is in id order
            }
        }

        /// A run of the listing over which one ORDER BY holds: assets with the key, or
        /// assets without it (by id).
        struct Segment {
            var condition: CatalogSQL
            var ordering: CatalogSQL
            /// The assets without a value of the key.
            var withoutKey = false
        }

        /// The segments from `cursor` on: with a cursor, the one it is in starts just
        /// after it, and those before it are left out.
        func segments(after cursor: AssetCursor?) -> [Segment] {
            let direction: CatalogSQL = descending ? "DESC" : "ASC"
            let beyond: CatalogSQL = descending ? "<" : ">"
            switch sort {
            case .id:
                let after: CatalogSQL = cursor.map { "s.asset_id \(beyond) \($0.id)" } ?? "1 = 1"
                return [Segment(condition: after, ordering: "s.asset_id \(direction)")]
            case .imported:  // never NULL
                let after: CatalogSQL = cursor?.key.map { "(\(key), s.asset_id) \(beyond) (\($0.sql), \(cursor!.id))" } ?? "1 = 1"
                return [Segment(condition: after, ordering: "\(key) \(direction), s.asset_id \(direction)")]
            case .captured, .name: break
            }
            // Capture time: undated last, both ways. Name: SQL's own NULL-first order.
            let nullsFirst = sort == .name && !descending
            let cursorInNulls = cursor != nil && cursor?.key == nil
            var valued: CatalogSQL = "\(key) IS NOT NULL"
            if let cursor, let value = cursor.key {
                valued += " AND (\(key), s.asset_id) \(beyond) (\(value.sql), \(cursor.id))"
            }
            var unvalued: CatalogSQL = "\(key) IS NULL"
            if let cursor, cursorInNulls { unvalued += " AND s.asset_id \(beyond) \(cursor.id)" }
            let values = Segment(condition: valued, ordering: "\(key) \(direction), s.asset_id \(direction)")
            let nulls = Segment(condition: unvalued, ordering: "s.asset_id \(direction)", withoutKey: true)
            switch (nullsFirst, cursor == nil ? nil : cursorInNulls) {
            case (true, nil), (true, true?): return [nulls, values]
            case (true, false?): return [values]
            case (false, true?): return [nulls]
            case (false, _): return [values, nulls]
            }
        }
    }

    /// A query's filters as SQL on `asset_summary s`, and the filters a listing can start
    /// from instead of the order (each a subquery of candidate asset ids: all the assets
    /// the filter admits, perhaps more).
    struct Filters {
        private(set) var conditions: [CatalogSQL] = []
        private var candidates: [Candidate] = []
        /// The search's words that name a month of any year ("may"), with the candidates
        /// of the word's other meanings (file names, places, …): nil when they have none
        /// with an index.
        private(set) var monthWords: [(month: Int, others: CatalogSQL?)] = []

        struct Candidate {
            var sql: CatalogSQL
            /// A date range in capture order is the scan's own range already.
            var order: AssetQuery.Sort?
            /// The condition this subquery checks exactly, left out when starting from it.
            var replaces: Int?
            /// Where a listing starting from this filter reads, when not from the assets
            /// the subquery gives.
            var covering: Covering?
            /// What one candidate costs, in candidates of an exact filter: a name's run of
            /// three characters gives files that merely hold it, each read and tested, so
            /// each costs about three of a name's range.
            var weight = 1
            /// Whether the planner's estimate of its rows is close enough to choose a plan
            /// by, so that where the engine keeps statistics it is not counted: a date
            /// range, estimated from its column's histogram (counting a month took 2 ms of
            /// a 9 ms listing on PostgreSQL at a million assets).
            var estimable = false
        }

        /// A table or index, aliased `s`, that holds every sort key and filter column of
        /// `asset_summary` beside the filter's own, so a listing tests and sorts there.
        struct Covering {
            var table: CatalogSQL
            /// What selects the filter's rows, when the filter is not among the conditions.
            var condition: CatalogSQL?
            /// Whether an asset can come more than once (once per file).
            var repeats = false
        }

        /// nil when nothing can match (no camera of that make or model was ever seen).
        init?(_ query: AssetQuery, _ db: any CatalogConnection) throws {
            let dialect = db.dialect
            if !query.kinds.isEmpty {
                conditions.append("s.kind IN \(query.kinds)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_kind")) WHERE kind IN \(query.kinds)"))
            }
            if query.make != nil || query.model != nil {
                let cameras = try CameraRecord.matching(make: query.make, model: query.model, db)
                guard !cameras.isEmpty else { return nil }
                conditions.append("s.camera_id IN \(cameras)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_camera")) WHERE camera_id IN \(cameras)"))
            }
            var range: [CatalogSQL] = []
            if let since = query.since { range.append("captured_julian >= julianday(\(since))") }
            if let until = query.until {
                range.append(CatalogDates.isBareDate(until) ? "captured_julian < julianday(\(until)) + 1" : "captured_julian <= julianday(\(until))")
            }
            let search = query.searchTerms
            // The search's dates are local dates, as the timeline's days and the scrubber's
            // months are: read as SearchTerms+LocalDates says.
            var localDays: [CatalogSQL] = []
            for days in search?.days ?? [] {
                range += days.captureIndexRange()
                localDays.append(days.localDateCheck("s."))
            }
            if !range.isEmpty {
                conditions += range.map { "s.\($0)" }
                // Counted in the narrow index of capture time, name and id (0012).
                candidates.append(
                    Candidate(
                        sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_captured_name")) WHERE \(range.joined(separator: " AND "))",
                        order: .captured, covering: Covering(table: "asset_summary s \(dialect.indexedBy("asset_summary_by_captured"))"),
                        estimable: true))
            }
            conditions += localDays
            switch query.pairedBy {
            case .none?: conditions.append("s.paired_by IS NULL")
            case .some(let rule):
                conditions.append("s.paired_by = \(rule.rawValue)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_pairing")) WHERE paired_by = \(rule.rawValue)"))
            case nil: break
            }
            switch query.edited {
            case true?:
                conditions.append("s.edited = 1")
                candidates.append(Candidate(sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_edited")) WHERE edited = 1"))
            case false?: conditions.append("s.edited = 0")
            case nil: break
            }
            for feature in query.has {
                switch feature {
                case .motion:
                    conditions.append("s.kind = \(AssetKind.motion)")
                    candidates.append(Candidate(sql: "SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_kind")) WHERE kind = \(AssetKind.motion)"))
                case .aux(let type):
                    // Distance data: a depth map, or a disparity map.
                    let types: [AuxiliaryImageType] = type == .depth ? [.depth, .disparity] : [type]
                    let held: [CatalogSQL] = types.map { dialect.contains("s.aux_types", "\(",\($0.rawValue),")") }
                    conditions.append("(\(held.joined(separator: " OR ")))")
                    // Every version's images: the current version's are among them.
                    candidates.append(Candidate(sql: "SELECT asset_id FROM aux_image \(dialect.indexedBy("aux_image_by_type")) WHERE type IN \(types)"))
                }
            }
            if let name = query.name {
                // The summary's names first, read where the scan reads; then the exact
                // test on `resource`, for the few assets that pass (0010).
                let held = dialect.glob("s.names", "('*' || \(dialect.newline) || lower(\(name)) || \(dialect.newline) || '*')")
                conditions.append("\(held) AND EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = s.asset_id AND \(dialect.glob("r.lower_name", "lower(\(name))")))")
                if let range = Self.nameRange(name) {
                    // Exact: the pattern is tested here, on the names in the range, which
                    // carry their asset's summary (0011).
                    var names: CatalogSQL = "lower_name >= \(range.low) AND lower_name < \(range.high)"
                    if !range.whole { names += " AND \(dialect.glob("lower_name", "lower(\(name))"))" }
                    // A trashed asset's names stay, without its summary (0013).
                    names += " AND kind IS NOT NULL"
                    candidates.append(
                        Candidate(
                            sql: "SELECT asset_id FROM asset_file_name WHERE \(names)", replaces: conditions.count - 1,
                            covering: Covering(table: "asset_file_name s", condition: names, repeats: true)))
                }
                // The assets whose names hold the pattern's rarest-looking runs of three
                // characters, from the trigram index (0010): few for a rare pattern,
                // tested as any asset is.
                let trigrams = Self.distinctiveTrigrams(name)
                if !trigrams.isEmpty {
                    candidates.append(Candidate(sql: dialect.assetsWithNamesHolding(trigrams), weight: 2))
                }
            }
            if query.favorite {
                conditions.append("EXISTS (SELECT 1 FROM favorite f WHERE f.asset_id = s.asset_id)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM favorite"))
            }
            if let name = query.album {
                guard let album = try AlbumRecord.named(name, db)?.id else { return nil }
                conditions.append("EXISTS (SELECT 1 FROM album_asset x WHERE x.album_id = \(album) AND x.asset_id = s.asset_id)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM album_asset WHERE album_id = \(album)"))
            }
            for name in query.keywords {
                guard let keyword = try KeywordRecord.named(name, db)?.id else { return nil }
                conditions.append("EXISTS (SELECT 1 FROM asset_keyword x WHERE x.keyword_id = \(keyword) AND x.asset_id = s.asset_id)")
                candidates.append(Candidate(sql: "SELECT asset_id FROM asset_keyword WHERE keyword_id = \(keyword)"))
            }
            if let place = query.near {
                // The band of latitudes (and, away from the poles and the antimeridian, of
                // longitudes) the circle spans, from the index; then the great-circle
                // distance (haversine, mean earth radius) of the still's or movie's place.
                let box = Self.boundingBox(place)
                var within: CatalogSQL = "m.latitude BETWEEN \(box.south) AND \(box.north)"
                if let west = box.west, let east = box.east { within += " AND m.longitude BETWEEN \(west) AND \(east)" }
                let haversine: CatalogSQL = """
                    sqrt(pow(sin(radians(m.latitude - \(place.latitude)) / 2), 2) \
                    + cos(radians(\(place.latitude))) * cos(radians(m.latitude)) * pow(sin(radians(m.longitude - \(place.longitude)) / 2), 2))
                    """
                let distance: CatalogSQL = "6371008.8 * 2 * asin(\(dialect.least("1", haversine)))"
                conditions.append(
                    """
                    EXISTS (SELECT 1 FROM resource r JOIN metadata m ON m.resource_id = r.id \
                    WHERE r.asset_id = s.asset_id AND r.role IN ('photo', 'pairedVideo', 'video') AND \(within) AND \(distance) <= \(place.radius))
                    """)
                candidates.append(
                    Candidate(
                        sql: """
                            SELECT r.asset_id FROM metadata m \(dialect.indexedBy("metadata_by_place")) JOIN resource r ON r.id = m.resource_id \
                            WHERE \(within) AND r.role IN ('photo', 'pairedVideo', 'video')
                            """))
            }
            if query.place != nil || query.country != nil {
                // Matched among the few thousand named places, then the files by place (0025).
                let places = try PlaceRecord.fetchAll(db)
                var ids = Set(places.map(\.id))
                if let text = query.place { ids.formIntersection(PlaceMatching.places(places, named: text)) }
                if let text = query.country { ids.formIntersection(PlaceMatching.places(places, inCountry: text)) }
                guard !ids.isEmpty else { return nil }
                let list = ids.sorted()
                conditions.append(Self.atPlaces(list, dialect))
                candidates.append(Candidate(sql: Self.assetsAtPlaces(list, dialect)))
            }
            if let box = query.box {
                // From the index of locations (0016), then the asset of each file found.
                let longitudes: CatalogSQL =
                    box.west <= box.east
                    ? "m.longitude >= \(box.west) AND m.longitude < \(box.east)" : "(m.longitude >= \(box.west) OR m.longitude < \(box.east))"
                let within: CatalogSQL = "m.latitude >= \(box.south) AND m.latitude < \(box.north) AND \(longitudes)"
                conditions.append(
                    """
                    EXISTS (SELECT 1 FROM resource r JOIN metadata m ON m.resource_id = r.id \
                    WHERE r.asset_id = s.asset_id AND r.role IN ('photo', 'pairedVideo', 'video') AND \(within))
                    """)
                candidates.append(
                    Candidate(
                        sql: """
                            SELECT r.asset_id FROM metadata m \(dialect.indexedBy("metadata_by_place")) JOIN resource r ON r.id = m.resource_id \
                            WHERE \(within) AND r.role IN ('photo', 'pairedVideo', 'video')
                            """))
            }
            if let search, !search.words.isEmpty {
                try addSearchWords(search, db)
            }
            // A date range alone, sorted by name or id: everything the listing reads is in
            // the narrow index, a third of the wide one's pages (0012).
            if !range.isEmpty, conditions.count == range.count, query.sort == .name || query.sort == .id,
                let dates = candidates.firstIndex(where: { $0.order == .captured })
            {
                candidates[dates].covering = Covering(table: dialect.summary(readThrough: "asset_summary_by_captured_name", selecting: range))
            }
        }

        /// The search's words, each a condition that one of the asset's facts meets: its
        /// file names, camera, lens, keywords, albums, places, or (for a month's name) its
        /// month. The names of cameras, lenses, keywords, albums and places are matched
        /// here among their few distinct values, then the assets by id. A word is a
        /// candidate to start from only when every fact it may match has an index: its
        /// names' runs of three characters among them (so a word of three or more).
        private mutating func addSearchWords(_ search: SearchTerms, _ db: any CatalogConnection) throws {
            let dialect = db.dialect
            // Every name folded once for all the words.
            let cameras = try CameraRecord.fetchAll(db).map { c in
                (id: c.id, names: [c.make, c.model, c.make + " " + c.model].map(PlaceMatching.fold))
            }
            let lenses = try MetadataRecord.lensModels(db).map { (model: $0, folded: PlaceMatching.fold($0)) }
            let keywords = try KeywordRecord.allNames(db).map { (id: $0.id, folded: PlaceMatching.fold($0.name)) }
            let albums = try AlbumRecord.allNames(db).map { (id: $0.id, folded: PlaceMatching.fold($0.name)) }
            let places = PlaceMatching.folded(lines: try PlaceRecord.searchNames(db))
            let stills: CatalogSQL = "r.role IN ('photo', 'pairedVideo', 'video')"
            for word in search.words {
                // File names: lower case as SQL's lower() makes them (ASCII letters only).
                let lower = String(String.UnicodeScalarView(word.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
                var tests: [CatalogSQL] = [dialect.contains("s.names", "\(lower)")]
                var sources: [CatalogSQL]? = []
                let trigrams = Self.distinctiveTrigrams(lower.replacingOccurrences(of: "*", with: "").replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "[", with: ""))
                if trigrams.isEmpty { sources = nil } else { sources?.append(dialect.assetsWithNamesHolding(trigrams)) }
                let folded = PlaceMatching.fold(word)
                let matchedCameras = cameras.filter { $0.names.contains { $0.contains(folded) } }.map(\.id)
                if !matchedCameras.isEmpty {
                    tests.append("s.camera_id IN \(matchedCameras)")
                    sources?.append("SELECT asset_id FROM asset_summary \(dialect.indexedBy("asset_summary_by_camera")) WHERE camera_id IN \(matchedCameras)")
                }
                let matchedLenses = lenses.filter { $0.folded.contains(folded) }.map(\.model)
                if !matchedLenses.isEmpty {
                    tests.append(dialect.exists(
                        "SELECT 1 FROM resource r JOIN metadata m ON m.resource_id = r.id WHERE r.asset_id = s.asset_id AND \(stills) AND m.lens_model IN \(matchedLenses)"))
                    sources?.append(
                        "SELECT r.asset_id FROM metadata m \(dialect.indexedBy("metadata_by_lens")) JOIN resource r ON r.id = m.resource_id WHERE m.lens_model IN \(matchedLenses) AND \(stills)")
                }
                let matchedKeywords = keywords.filter { PlaceMatching.matches($0.folded, words: folded) }.map(\.id)
                if !matchedKeywords.isEmpty {
                    tests.append(dialect.exists("SELECT 1 FROM asset_keyword x WHERE x.asset_id = s.asset_id AND +x.keyword_id IN \(matchedKeywords)"))
                    sources?.append("SELECT asset_id FROM asset_keyword WHERE keyword_id IN \(matchedKeywords)")
                }
                let matchedAlbums = albums.filter { PlaceMatching.matches($0.folded, words: folded) }.map(\.id)
                if !matchedAlbums.isEmpty {
                    tests.append(dialect.exists("SELECT 1 FROM album_asset x WHERE x.asset_id = s.asset_id AND +x.album_id IN \(matchedAlbums)"))
                    sources?.append("SELECT asset_id FROM album_asset WHERE album_id IN \(matchedAlbums)")
                }
                let matchedPlaces = PlaceMatching.places(places, named: word)
                if !matchedPlaces.isEmpty {
                    tests.append(Self.atPlaces(matchedPlaces, dialect))
                    sources?.append(Self.assetsAtPlaces(matchedPlaces, dialect))
                }
                if let month = SearchTerms.month(word), search.months.contains(month) {
                    // Captured in that month of any year: no index keeps months, but the
                    // capture index keeps each year's (``AssetListing/MonthArms``).
                    tests.append("substr(s.captured_at, 6, 2) = \(String(format: "%02d", month))")
                    monthWords.append((month, sources.map { $0.joined(separator: " UNION ALL ") }))
                    sources = nil
                }
                conditions.append("(" + tests.joined(separator: " OR ") + ")")
                if let sources {
                    // One column, whatever its name (the trigram table's is rowid).
                    candidates.append(Candidate(sql: sources.joined(separator: " UNION ALL "), weight: 2))
                }
            }
        }

        /// Whether the asset `s` has one of `places` (0027): its rows found by its id, then
        /// their places tested. (`+` keeps SQLite from seeking the key once per place of
        /// the list: a region's hundred places made a scan of 7,000 assets take 36 ms, not 6.)
        static func atPlaces(_ places: [Int64], _ dialect: CatalogDialect) -> CatalogSQL {
            dialect.exists("SELECT 1 FROM asset_place x WHERE x.asset_id = s.asset_id AND +x.place_id IN \(places)")
        }

        /// The assets at one of `places`, from the index of places alone.
        static func assetsAtPlaces(_ places: [Int64], _ dialect: CatalogDialect) -> CatalogSQL {
            "SELECT asset_id FROM asset_place \(dialect.indexedBy("asset_place_by_place")) WHERE place_id IN \(places)"
        }

        /// The latitudes and longitudes a circle spans; no longitudes when it reaches a pole
        /// or crosses the antimeridian (then the band of latitudes alone is read).
        static func boundingBox(_ place: AssetQuery.Place) -> (south: Double, north: Double, west: Double?, east: Double?) {
            let metresPerDegree = 111_194.9  // of latitude, on the mean-radius sphere
            let dLat = place.radius / metresPerDegree
            let south = max(-90, place.latitude - dLat), north = min(90, place.latitude + dLat)
            let widest = max(abs(south), abs(north))
            guard widest < 89.9 else { return (south, north, nil, nil) }
            let dLon = place.radius / (metresPerDegree * cos(widest * .pi / 180))
            let west = place.longitude - dLon, east = place.longitude + dLon
            guard west >= -180, east <= 180 else { return (south, north, nil, nil) }
            return (south, north, west, east)
        }

        /// The candidates worth counting for a listing in `sort` order, with the conditions
        /// left to test on the assets each one gives.
        func drivers(sort: AssetQuery.Sort) -> [(candidate: Candidate, conditions: [CatalogSQL])] {
            candidates.filter { $0.order != sort }.map { candidate in
                (candidate, conditions.enumerated().filter { $0.offset != candidate.replaces }.map(\.element))
            }
        }

        /// The pattern's runs of three literal characters (outside `*`, `?` and `[…]`) most
        /// likely to be rare in file names, at most two: those with the most digits, then
        /// the last. Lower-cased as SQL's `lower` does (ASCII only), as the names are.
        static func distinctiveTrigrams(_ pattern: String) -> [String] {
            var runs: [[Unicode.Scalar]] = [[]]
            // Inside `[…]`: what of it was read. A `]` first, or first after `^`, is one of
            // the class's characters, as GLOB reads it.
            var inClass = false, classRead = 0, negated = false
            for c in pattern.unicodeScalars {
                if inClass {
                    if classRead == 0 && c == "^" {
                        negated = true
                    } else if c == "]" && !(classRead == 0 || (classRead == 1 && negated)) {
                        inClass = false
                    }
                    classRead += 1
                } else if c == "[" {
                    (inClass, classRead, negated) = (true, 0, false)
                    runs.append([])
                } else if c == "*" || c == "?" {
                    runs.append([])
                } else {
                    runs[runs.count - 1].append(("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c)
                }
            }
            var trigrams: [(text: String, digits: Int, position: Int)] = []
            for run in runs where run.count >= 3 {
                for i in 0...(run.count - 3) {
                    let three = run[i..<i + 3]
                    let text = String(String.UnicodeScalarView(three))
                    guard !trigrams.contains(where: { $0.text == text }) else { continue }
                    trigrams.append((text, three.filter { ("0"..."9").contains($0) }.count, trigrams.count))
                }
            }
            return trigrams.sorted { ($0.digits, $0.position) > ($1.digits, $1.position) }.prefix(2).map(\.text)
        }

        /// For a name pattern that starts with plain ASCII text: the range of lower-case
        /// names starting with it (`IMG_35*` → `img_35` up to `img_36`).
        /// `whole`: the range is the pattern (`IMG_35*`, a literal start and one `*`), no
        /// GLOB needed on the names in it.
        static func nameRange(_ pattern: String) -> (low: String, high: String, whole: Bool)? {
            let literal = pattern.lowercased().prefix { !"*?[".contains($0) }
            guard let last = literal.last, literal.allSatisfy({ $0.isASCII }), let code = last.asciiValue, code < 0x7F else { return nil }
            let whole = pattern.unicodeScalars.count == literal.unicodeScalars.count + 1 && pattern.hasSuffix("*")
            return (String(literal), String(literal.dropLast()) + String(UnicodeScalar(code + 1)), whole)
        }
    }
}

extension AssetListing {
    /// The years in which assets outside the trash were captured, newest first: one probe
    /// of the capture index per year between the first and the last, never a scan.
    static func captureYears(_ db: any CatalogConnection) throws -> [Int] {
        let first = try db.fetchOne(
            String.self, "SELECT captured_at FROM asset_summary WHERE captured_julian IS NOT NULL ORDER BY captured_julian LIMIT 1")
        let last = try db.fetchOne(
            String.self, "SELECT captured_at FROM asset_summary WHERE captured_julian IS NOT NULL ORDER BY captured_julian DESC LIMIT 1")
        guard let low = first.flatMap({ Int($0.prefix(4)) }), let high = last.flatMap({ Int($0.prefix(4)) }), low <= high else { return [] }
        // A day either side: capture times are UTC in the index, local in the text.
        return try (low...high).reversed().filter { year in
            let (from, to) = (String(format: "%04d-12-31", year - 1), String(format: "%04d-01-02", year + 1))
            return try db.fetchOne(
                Bool.self,
                """
                SELECT EXISTS (SELECT 1 FROM asset_summary \(db.dialect.indexedBy("asset_summary_by_captured"))
                               WHERE captured_julian >= julianday(\(from)) AND captured_julian < julianday(\(to)))
                """) ?? false
        }
    }

    /// The months in which assets outside the trash were captured, newest first, as
    /// "2025-05": per year of ``captureYears(_:)``, one statement probing the capture
    /// index once per month, a day either side (the index is UTC), the local date's month
    /// then checked on the few rows read.
    static func captureMonths(_ db: any CatalogConnection) throws -> [String] {
        var months: [Int] = []
        for year in try captureYears(db) {
            let probes: [CatalogSQL] = (1...12).map { month in
                let days = SearchTerms.month(month, of: year)
                let tests = (days.captureIndexRange() + [days.localDateCheck()]).joined(separator: " AND ")
                return CatalogSQL(sql: "SELECT CAST(\(year * 100 + month) AS BIGINT) AS month WHERE EXISTS (")
                    + "SELECT 1 FROM asset_summary \(db.dialect.indexedBy("asset_summary_by_captured")) WHERE \(tests))"
            }
            months += try db.fetchAll(Int.self, probes.joined(separator: " UNION ALL "))
        }
        return months.sorted(by: >).map { String(format: "%04d-%02d", $0 / 100, $0 % 100) }
    }

    /// The assets outside the trash captured on `day` ("2025-11-28") by their local
    /// dates, as the timeline's days are, in capture order: the capture index read a day
    /// either side (it is UTC), each row's local date then checked.
    static func capturedOn(_ day: String, _ db: any CatalogConnection) throws -> [Int64] {
        let days = SearchTerms.Days(day: day)
        let tests = (days.captureIndexRange() + [days.localDateCheck()]).joined(separator: " AND ")
        return try db.fetchAll(
            Int64.self,
            """
            SELECT asset_id FROM asset_summary \(db.dialect.indexedBy("asset_summary_by_captured"))
            WHERE \(tests) ORDER BY captured_julian, asset_id
            """)
    }
}

extension AssetCursor.Key {
    var sql: CatalogSQL {
        switch self {
        case .number(let n): "\(n)"
        case .text(let t): "\(t)"
        }
    }
}

/// Dates as the catalog compares them: SQLite's own date functions.
enum CatalogDates {
    /// Whether SQLite reads `text` as a date or date-time.
    static func isValid(_ text: String) -> Bool {
        guard let queue = try? DatabaseQueue() else { return false }
        let day = try? queue.read { db in try SQLRequest<Double>("SELECT julianday(\(text))").fetchOne(db) }
        return day != nil
    }

    /// "2025-05-26" without a time: `--until` then includes the whole day.
    static func isBareDate(_ s: String) -> Bool {
        s.count == 10 && s.filter { $0 == "-" }.count == 2 && !s.contains("T")
    }
}
