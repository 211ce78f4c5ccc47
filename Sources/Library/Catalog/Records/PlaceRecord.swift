import Foundation
import GRDB

/// A row of `place` (0025): a place some file was taken at, by name ('' where a part is
/// unknown).
struct PlaceRecord: Sendable, Equatable {
    var id: Int64
    var name: PlaceName

    init(id: Int64, name: PlaceName) {
        (self.id, self.name) = (id, name)
    }

    /// From a row of ``selection``'s columns, starting at column `first`.
    init(row: CatalogRow, from first: Int = 0) throws {
        let city: String = try row.required(first + 1), region: String = try row.required(first + 2)
        id = try row.required(first)
        name = PlaceName(
            city: city.isEmpty ? nil : city, region: region.isEmpty ? nil : region, country: try row.required(first + 4),
            countryCode: try row.required(first + 3))
    }

    static let selection: CatalogSQL = "id, city, region, country_code, country"
}

extension PlaceRecord {
    /// The id of `name`'s row, added when no file had that place yet. (Inserted without a
    /// conflict when another writer adds it at the same moment: PostgreSQL waits for that
    /// writer, then the second read sees its row.)
    static func id(of name: PlaceName, _ db: any CatalogConnection) throws -> Int64 {
        let (city, region) = (name.city ?? "", name.region ?? "")
        let find: CatalogSQL = "SELECT id FROM place WHERE city = \(city) AND region = \(region) AND country_code = \(name.countryCode)"
        if let id = try db.fetchOne(Int64.self, find) { return id }
        try db.execute(
            """
            INSERT INTO place (city, region, country_code, country) VALUES (\(city), \(region), \(name.countryCode), \(name.country))
            ON CONFLICT (city, region, country_code) DO NOTHING
            """)
        guard let id = try db.fetchOne(Int64.self, find) else {
            throw LibraryError.damagedCatalog(path: "(the catalog)", detail: "the place \(name.description) was added but cannot be read back")
        }
        return id
    }

    /// Every place some file was taken at: a few thousand rows however large the library.
    static func fetchAll(_ db: any CatalogConnection) throws -> [PlaceRecord] {
        try db.rows("SELECT \(selection) FROM place ORDER BY id").map { try PlaceRecord(row: $0) }
    }

    /// Every place's id and its names as one text, `city<TAB>region<TAB>country` (a part
    /// unknown is empty), as the search box matches them: one column, a few thousand rows.
    static func searchNames(_ db: any CatalogConnection) throws -> [(id: Int64, line: String)] {
        var out: [(id: Int64, line: String)] = []
        try db.forEachRow("SELECT id, city || \("\t") || region || \("\t") || country FROM place ORDER BY id") { row in
            out.append((try row.required(0), try row.required(1)))
            return true
        }
        return out
    }

    /// The place of each of these assets: its still's, else its movie's (as its location).
    static func names(of assets: IDList, _ db: any CatalogConnection) throws -> [Int64: PlaceName] {
        let rows = try assets.fetchRows(db) {
            """
            SELECT r.asset_id, p.id, p.city, p.region, p.country_code, p.country, r.role FROM resource r
            JOIN metadata m ON m.resource_id = r.id JOIN place p ON p.id = m.place_id
            WHERE r.asset_id IN \($0) AND r.role IN ('photo', 'pairedVideo', 'video')
            """
        }
        var out: [Int64: (PlaceName, isStill: Bool)] = [:]
        for row in rows {
            let asset: Int64 = try row.required(0)
            let isStill = (row[6] as String?) == ResourceRole.photo.rawValue
            guard out[asset] == nil || (isStill && out[asset]?.isStill == false) else { continue }
            out[asset] = (try PlaceRecord(row: row, from: 1).name, isStill)
        }
        return out.mapValues(\.0)
    }

    /// The files taken at no named place yet although they have a location: the still and
    /// movie files of `asset`, with their coordinates.
    static func unnamedFiles(of asset: Int64, _ db: any CatalogConnection) throws -> [(resource: Int64, latitude: Double, longitude: Double)] {
        try db.rows(
            """
            SELECT m.resource_id, m.latitude, m.longitude FROM resource r JOIN metadata m ON m.resource_id = r.id
            WHERE r.asset_id = \(asset) AND m.latitude IS NOT NULL AND m.longitude IS NOT NULL AND m.place_id IS NULL
            ORDER BY m.resource_id
            """
        ).map { (try $0.required(0), try $0.required(1), try $0.required(2)) }
    }

    /// Records `place` as where the file `resource` was taken.
    static func setPlace(_ place: Int64, ofFile resource: Int64, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE metadata SET place_id = \(place) WHERE resource_id = \(resource)")
    }
}

/// How `--place`, `--country` and the search box match a place's names: whole words from
/// their start, in any case and with or without accents (`sao paulo` finds São Paulo,
/// `york` New York City, `lisbon` Lisbon, but `bon` none of them).
enum PlaceMatching {
    static func fold(_ text: String) -> String {
        let (lower, ascii) = lowerASCII(text)
        return ascii ? String(decoding: lower, as: UTF8.self) : text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// `text`'s UTF-8 with its ASCII capitals lower-cased, and whether it is all ASCII:
    /// then that is its folding, at a fiftieth of Foundation's cost (a search folds every
    /// name the library holds).
    private static func lowerASCII(_ text: String) -> (bytes: [UInt8], ascii: Bool) {
        var ascii = true
        let bytes = text.utf8.map { byte -> UInt8 in
            if byte >= 0x80 { ascii = false }
            return byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
        }
        return (bytes, ascii)
    }

    /// Whether `words` (folded) starts a word of `text` (folded).
    static func matches(_ text: String, words: String) -> Bool {
        matches(Array(text.utf8), words: Array(words.utf8))
    }

    /// Whether `w` (folded, UTF-8) starts a word of `t` (folded, UTF-8): compared as bytes
    /// (a search tests every name the library holds; Foundation's `range(of:)` took a
    /// third of a search's time).
    static func matches(_ t: [UInt8], words w: [UInt8]) -> Bool {
        guard !w.isEmpty, w.count <= t.count else { return false }
        for i in 0...(t.count - w.count) where t[i] == w[0] {
            guard t[i..<i + w.count].elementsEqual(w) else { continue }
            if i == 0 || !startsAfterLetter(t, i) { return true }
        }
        return false
    }

    /// Whether the character before byte `i` of `bytes` (UTF-8) is a letter.
    private static func startsAfterLetter(_ bytes: [UInt8], _ i: Int) -> Bool {
        let before = bytes[i - 1]
        if before < 0x80 { return (0x41...0x5A).contains(before) || (0x61...0x7A).contains(before) }
        // Not ASCII: the whole character before, as Swift reads it ("d’Ivoire": not a letter).
        var start = i - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return String(decoding: bytes[start..<i], as: UTF8.self).last?.isLetter ?? false
    }

    /// A place's id and its names (city, region, country) folded, as UTF-8 between tabs:
    /// a word, which holds no tab, matches one name or none.
    typealias Folded = (id: Int64, names: [UInt8])

    /// The places one of whose names (city, region, country) `text` matches.
    static func places(_ places: [PlaceRecord], named text: String) -> [Int64] {
        self.places(folded(places), named: text)
    }

    /// Each place's id and its names folded: folded once for a query of several words.
    static func folded(_ places: [PlaceRecord]) -> [Folded] {
        folded(lines: places.map { p in (p.id, [p.name.city, p.name.region, p.name.country].compactMap { $0 }.joined(separator: "\t")) })
    }

    /// Places as ``PlaceRecord/searchNames(_:)`` reads them (their names in one text, between
    /// tabs), folded: ASCII ones by lower-casing their bytes, all the others in one call to
    /// Foundation (a fold of each of the few thousand names, one at a time, was a fifth
    /// of a search's time). Names hold neither tabs nor line breaks, and folding keeps both.
    static func folded(lines places: [(id: Int64, line: String)]) -> [Folded] {
        var out: [Folded] = []
        out.reserveCapacity(places.count)
        var others: [Int] = []
        for (i, p) in places.enumerated() {
            let (lower, ascii) = lowerASCII(p.line)
            out.append((p.id, lower))
            if !ascii { others.append(i) }
        }
        guard !others.isEmpty else { return out }
        let lines = Array(fold(others.map { places[$0].line }.joined(separator: "\n")).utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
        for (k, i) in others.enumerated() {
            out[i].names = lines.count == others.count ? Array(lines[k]) : Array(fold(places[i].line).utf8)
        }
        return out
    }

    static func places(_ folded: [Folded], named text: String) -> [Int64] {
        let words = Array(fold(text.trimmingCharacters(in: .whitespaces)).utf8)
        return folded.filter { matches($0.names, words: words) }.map(\.id)
    }

    /// The places in the country `text` names: its ISO code (`PT`), or its name.
    static func places(_ places: [PlaceRecord], inCountry text: String) -> [Int64] {
        let given = text.trimmingCharacters(in: .whitespaces)
        let words = fold(given)
        return places.filter { p in
            p.name.countryCode.caseInsensitiveCompare(given) == .orderedSame || matches(fold(p.name.country), words: words)
        }.map(\.id)
    }
}
