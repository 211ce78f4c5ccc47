import ArgumentParser
import Foundation
import Library

extension AssetKind: ExpressibleByArgument {}
extension AssetQuery.Sort: ExpressibleByArgument {}
extension AssetQuery.PairedBy: ExpressibleByArgument {}

/// The filters and order of `camlib query`, shared with `camlib export --query`.
struct QueryFilters: ParsableArguments {
    @Option(name: .long, help: "Only assets of this kind (photo, live, video, motion); repeatable.")
    var kind: [AssetKind] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only assets that carry this; repeatable.",
            discussion: "depth (depth or disparity data), disparity, portrait-matte, skin-matte, hair-matte, teeth-matte, glasses-matte, sky-matte, gain-map, other (an auxiliary image camlib has no name for), motion (a Motion Photo's embedded movie).",
            valueName: "feature"))
    var has: [String] = []

    @Option(name: .long, help: "Camera make contains this text (case-insensitive).")
    var make: String?

    @Option(name: .long, help: "Camera model contains this text (case-insensitive).")
    var model: String?

    @Option(name: .long, help: "Captured at or after this date or time.")
    var since: String?

    @Option(name: .long, help: "Captured on or before this date or time.")
    var until: String?

    @Option(name: .customLong("paired-by"), help: "Live Photos paired by this rule (contentIdentifier, stem), or none.")
    var pairedBy: AssetQuery.PairedBy?

    @Option(name: .long, help: "An original file name matches this pattern (* and ?, case-insensitive).")
    var name: String?

    @Flag(name: .long, help: "The assets in the trash instead (`camlib trash` put them there).")
    var trashed = false

    @Flag(name: .long, help: "Only favourites (`camlib favorite`).")
    var favorite = false

    @Option(name: .long, help: ArgumentHelp("Only assets in this album.", valueName: "name"))
    var album: String?

    @Option(name: .long, help: ArgumentHelp("Only assets with this keyword; repeatable (all must be there).", valueName: "keyword"))
    var keyword: [String] = []

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Only assets taken near this place: latitude,longitude in degrees (48.8584,2.2945).", discussion: "Within --within of it.",
            valueName: "lat,lon"))
    var near: String?

    @Option(name: .long, help: ArgumentHelp("With --near: how far from the place (5km, 300m; default 1km).", valueName: "distance"))
    var within: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only assets taken in a place of this name: a city, a region or a country.",
            discussion: "Whole words from their start, in any case, accents optional: Lisbon, \"sao paulo\", york (New York City and New York State).",
            valueName: "name"))
    var place: String?

    @Option(name: .long, help: ArgumentHelp("Only assets taken in this country: its ISO code (PT) or its name in English.", valueName: "country"))
    var country: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only assets that match every word and date of this text, as the gallery's search box does.",
            discussion: "A date is a year (2023), a month (\"May 2025\", 2025-05, or may for May of any year) or a day (2025-05-26). A word matches any part of a file name, a camera's make or model, a lens, or a keyword, album or place named by it (any case, accents optional); \"quoted words\" are one word.",
            valueName: "text"))
    var search: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Only assets taken inside this box: south,west,north,east in degrees (38.6,-9.3,38.8,-9.0).",
            discussion: "West greater than east crosses the antimeridian. The gallery's map shows a cluster's assets so.", valueName: "s,w,n,e"))
    var box: String?

    @Option(name: .long, help: "Order by captured, imported, name or id.")
    var sort: AssetQuery.Sort = .captured

    @Flag(name: .long, help: "Reverse the order.")
    var reverse = false

    @Option(name: .long, help: "At most this many assets.")
    var limit: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Continue after this place: the cursor of an asset of an earlier listing in the same order.",
            discussion: "`camlib query --json` gives each asset's \"cursor\"; a table cut by --limit ends with the next one.",
            valueName: "cursor"))
    var after: String?

    func validate() throws {
        let query = makeQuery()
        if let problem = query.datesOrLimitProblem { throw ValidationError(problem) }
        for feature in has where AssetQuery.Feature(name: feature) == nil {
            throw ValidationError("--has \(feature): unknown; use one of \(AssetQuery.Feature.names.joined(separator: ", "))")
        }
        if let after, query.after == nil {
            throw ValidationError("--after \(after): not a cursor (use the \"cursor\" of an asset that `camlib query --json` printed)")
        }
        if let problem = query.cursorProblem { throw ValidationError(problem) }
        if let problem = AssetQuery.placeProblem(near: near, within: within) { throw ValidationError(problem) }
        if let box, AssetQuery.Box(parsing: box) == nil {
            throw ValidationError("--box \(box): not a box; use south,west,north,east in degrees, such as 38.6,-9.3,38.8,-9.0")
        }
    }

    func makeQuery() -> AssetQuery {
        var query = AssetQuery()
        query.kinds = kind
        query.has = has.compactMap(AssetQuery.Feature.init(name:))
        query.make = make
        query.model = model
        query.since = since
        query.until = until
        query.pairedBy = pairedBy
        query.name = name
        query.trashed = trashed
        query.favorite = favorite
        query.album = album
        query.keywords = keyword
        query.near = AssetQuery.place(near: near, within: within)
        query.place = place
        query.country = country
        query.search = search
        query.box = box.flatMap(AssetQuery.Box.init(parsing:))
        query.sort = sort
        query.descending = reverse
        query.limit = limit
        query.after = after.flatMap(AssetCursor.init)
        return query
    }
}

/// The rules of `camlib query`'s arguments that hold for the query they make, checked
/// alike by ArgumentParser's reading (``QueryFilters/validate()``) and the direct one
/// (``QuickArguments``).
extension AssetQuery {
    /// A date SQLite cannot read, or a negative limit.
    var datesOrLimitProblem: String? {
        for (label, value) in [("--since", since), ("--until", until)] {
            if let value, !Self.isValidDate(value) { return "\(label) \(value): not a date; use 2025-05-26 or 2025-05-26T09:27:06" }
        }
        if let limit, limit < 0 { return "--limit must not be negative" }
        return nil
    }

    /// `--near LAT,LON [--within DISTANCE]` as a place, when both read.
    static func place(near: String?, within: String?) -> Place? {
        guard let near, let radius = within.map(Place.distance) ?? 1000 else { return nil }
        return Place(parsing: near, radius: radius)
    }

    /// What is wrong with `--near` and `--within`, if anything.
    static func placeProblem(near: String?, within: String?) -> String? {
        if near == nil { return within == nil ? nil : "--within goes with --near" }
        if let within, Place.distance(within) == nil { return "--within \(within): not a distance; use 5km or 300m" }
        if place(near: near, within: within) == nil {
            return "--near \(near!): not a place; use latitude,longitude in degrees, such as 48.8584,2.2945"
        }
        return nil
    }

    /// A cursor of another order than the query's.
    var cursorProblem: String? {
        guard let after, after.sort != sort || after.descending != descending else { return nil }
        return "--after: \(LibraryError.cursorOfAnotherOrder(sort: after.sort.rawValue, descending: after.descending))"
    }
}
