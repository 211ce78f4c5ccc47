import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library

/// The timeline's filters, read from a request's query string: the names of `camlib
/// query`'s options, so a view's URL reads like the command that lists it.
///
/// `/api/assets?kind=live&make=Apple&since=2024-01-01&has=depth&edited=1&limit=100&after=CURSOR`
/// `/api/assets?favorite=1&album=Lisbon&keyword=beach&keyword=sun`, `/api/assets?trashed=1`,
/// `/api/assets?place=Lisbon&country=PT`, `/api/assets?q=2025+apple` (the search box),
/// `/api/assets?box=38.6,-9.3,38.8,-9.0` (a cluster of the map)
///
/// `before=CURSOR` reads the other way: the page just before that asset in the timeline's
/// order (newer ones, newest first), for scrolling up after a jump.
struct TimelineQuery {
    static let largestPage = 500

    var query: AssetQuery
    /// Read in the opposite order from the cursor `before` gave, then turned round.
    var backwards = false

    static func parse(_ parameters: FlatDictionary<Substring, Substring>) throws -> TimelineQuery {
        var query = AssetQuery()
        func values(_ name: String) -> [String] {
            parameters[values: Substring(name)].flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
        }
        func one(_ name: String) -> String? { parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        for kind in values("kind") {
            guard let k = AssetKind(rawValue: kind) else {
                throw HTTPError(.badRequest, message: "kind=\(kind): use one of \(AssetKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.kinds.append(k)
        }
        for name in values("has") {
            guard let feature = AssetQuery.Feature(name: name) else {
                throw HTTPError(.badRequest, message: "has=\(name): use one of \(AssetQuery.Feature.names.joined(separator: ", "))")
            }
            query.has.append(feature)
        }
        query.make = one("make")
        query.model = one("model")
        query.name = one("name")
        for (label, value) in [("since", one("since")), ("until", one("until"))] {
            if let value, !AssetQuery.isValidDate(value) {
                throw HTTPError(.badRequest, message: "\(label)=\(value): not a date; use 2025-05-26 or 2025-05-26T09:27:06")
            }
        }
        query.since = one("since")
        query.until = one("until")
        if let rule = one("pairedBy") {
            guard let r = AssetQuery.PairedBy(rawValue: rule) else {
                throw HTTPError(.badRequest, message: "pairedBy=\(rule): use one of \(AssetQuery.PairedBy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.pairedBy = r
        }
        func flag(_ name: String) throws -> Bool? {
            guard let text = one(name) else { return nil }
            guard let flag = ["1": true, "true": true, "0": false, "false": false][text] else {
                throw HTTPError(.badRequest, message: "\(name)=\(text): use 1 or 0")
            }
            return flag
        }
        query.edited = try flag("edited")
        // What a person said about assets; the trash shows instead of the timeline.
        query.favorite = try flag("favorite") ?? false
        query.trashed = try flag("trashed") ?? false
        query.album = one("album")
        query.keywords = values("keyword")
        query.place = one("place")
        query.country = one("country")
        query.search = one("q")
        if let text = one("box") {
            guard let box = AssetQuery.Box(parsing: text) else {
                throw HTTPError(.badRequest, message: "box=\(text): use south,west,north,east in degrees, such as 38.6,-9.3,38.8,-9.0")
            }
            query.box = box
        }
        if let sort = one("sort") {
            guard let s = AssetQuery.Sort(rawValue: sort) else {
                throw HTTPError(.badRequest, message: "sort=\(sort): use one of \(AssetQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.sort = s
        }
        // The timeline: newest first unless asked otherwise.
        query.descending = one("order") != "oldest"
        let limit = one("limit").map { Int($0) } ?? 100
        guard let limit, limit > 0, limit <= largestPage else {
            throw HTTPError(.badRequest, message: "limit: a number from 1 to \(largestPage)")
        }
        query.limit = limit
        if let start = one("start") {
            // A jump: the page starting at a day (newest first: the end of that day).
            guard let day = julianDay(start) else { throw HTTPError(.badRequest, message: "start=\(start): use a date, 2025-05-26") }
            guard query.sort == .captured else { throw HTTPError(.badRequest, message: "start: only in capture order") }
            query.after = AssetCursor(
                sort: .captured, descending: query.descending, key: .number(query.descending ? day + 1 : day),
                id: query.descending ? .max : 0)
        }
        if let after = one("after") {
            guard let cursor = AssetCursor(after) else { throw HTTPError(.badRequest, message: "after=\(after): not a cursor of this gallery") }
            guard cursor.sort == query.sort, cursor.descending == query.descending else {
                throw HTTPError(.badRequest, message: "after: \(LibraryError.cursorOfAnotherOrder(sort: cursor.sort.rawValue, descending: cursor.descending))")
            }
            query.after = cursor
        }
        if let before = one("before") {
            guard var cursor = AssetCursor(before), cursor.sort == query.sort else {
                throw HTTPError(.badRequest, message: "before=\(before): not a cursor of this gallery's order")
            }
            guard query.after == nil else { throw HTTPError(.badRequest, message: "give after, start or before, not two") }
            query.descending.toggle()
            cursor.descending = query.descending
            query.after = cursor
            return TimelineQuery(query: query, backwards: true)
        }
        return TimelineQuery(query: query)
    }

    /// The Julian day number at 00:00 UTC of a date "YYYY-MM-DD", as the catalog's
    /// `captured_julian` counts.
    static func julianDay(_ text: String) -> Double? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard text.count == 10, parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return nil }
        return date.timeIntervalSince1970 / 86_400 + 2_440_587.5
    }
}
