import Foundation

/// What the search box offers as a word is typed: a name some asset carries.
public struct SearchSuggestion: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case place, camera, lens, keyword, album
    }

    public var kind: Kind
    /// The name, as the catalog has it (`Lisbon`, `Apple iPhone 15 Pro`, `beach`).
    public var text: String
}

extension PhotoLibrary {
    /// Names that `word` starts a word of (places, keywords, albums) or is part of
    /// (cameras, lenses), in any case, accents optional: at most `limit` of each kind,
    /// places first. Read from the catalog's small tables of distinct names, never from
    /// its assets.
    public func searchSuggestions(for word: String, limit: Int = 5) throws -> [SearchSuggestion] {
        let folded = PlaceMatching.fold(word.trimmingCharacters(in: .whitespaces))
        guard !folded.isEmpty else { return [] }
        let (places, cameras, lenses, keywords, albums) = try catalog.read { db in
            (
                try PlaceRecord.fetchAll(db), try CameraRecord.fetchAll(db), try MetadataRecord.lensModels(db),
                try KeywordRecord.allNames(db).map(\.name), try AlbumRecord.allNames(db).map(\.name)
            )
        }
        func starting(_ names: [String]) -> [String] {
            // Each name folded once; those it starts before those it starts a later word
            // of, then alphabetically.
            let found = Set(names).compactMap { name -> (name: String, first: Bool)? in
                let f = PlaceMatching.fold(name)
                return PlaceMatching.matches(f, words: folded) ? (name, f.hasPrefix(folded)) : nil
            }
            return found.sorted { $0.first != $1.first ? $0.first : $0.name.localizedCompare($1.name) == .orderedAscending }.map(\.name)
        }
        func containing(_ names: [String]) -> [String] {
            Set(names).filter { PlaceMatching.fold($0).contains(folded) }.sorted { $0.localizedCompare($1) == .orderedAscending }
        }
        let placeNames = places.flatMap { [$0.name.city, $0.name.region, $0.name.country].compactMap { $0 } }
        let cameraNames = cameras.map { [$0.make, $0.model].filter { !$0.isEmpty }.joined(separator: " ") }
        var out: [SearchSuggestion] = []
        for (kind, names) in [
            (SearchSuggestion.Kind.place, starting(placeNames)), (.camera, containing(cameraNames)), (.lens, containing(lenses)),
            (.keyword, starting(keywords)), (.album, starting(albums)),
        ] {
            out += names.prefix(limit).map { SearchSuggestion(kind: kind, text: $0) }
        }
        return out
    }
}
