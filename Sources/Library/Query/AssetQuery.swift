import Containers
import Foundation

/// Filters and order for `camlib query`.
public struct AssetQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable {
        case captured, imported, name, id
    }

    /// Pairing filter: a rule, or `none` for assets that are not paired Live Photos.
    public enum PairedBy: String, Sendable, CaseIterable {
        case contentIdentifier, stem, none
    }

    /// What an asset must carry (`--has`): an auxiliary image type or an embedded movie.
    public enum Feature: Sendable, Equatable, Hashable {
        case aux(AuxiliaryImageType)
        case motion

        /// `depth`, `disparity`, `portrait-matte`, …, `gain-map`, `motion`.
        public init?(name: String) {
            if name == "motion" {
                self = .motion
            } else if let type = AuxiliaryImageType(optionName: name) {
                self = .aux(type)
            } else {
                return nil
            }
        }

        public static var names: [String] { AuxiliaryImageType.allCases.map(\.optionName) + ["motion"] }
    }

    public var kinds: [AssetKind] = []
    /// Every feature listed must be present. `depth` is satisfied by depth or disparity
    /// data (both give distance); `disparity` only by disparity.
    public var has: [Feature] = []
    /// Case-insensitive substring of the camera make / model.
    public var make: String?
    public var model: String?
    /// Captured at or after / on or before (ISO 8601 date or date-time; a bare date
    /// includes its whole day for `until`).
    public var since: String?
    public var until: String?
    public var pairedBy: PairedBy?
    /// Whether an edit is the current version (true), or the original is (false).
    public var edited: Bool?
    /// Shell-style pattern on any of the asset's original file names, case-insensitive.
    public var name: String?
    /// The assets in the trash instead of the others (`--trashed`).
    public var trashed = false
    /// Favourites only (`--favorite`).
    public var favorite = false
    /// In the album of this name (`--album`).
    public var album: String?
    /// Carrying every one of these keywords (`--keyword`, repeatable).
    public var keywords: [String] = []
    /// Taken within a distance of a place (`--near LAT,LON --within 5km`).
    public var near: Place?
    /// Taken in a place one of whose names (city, region, country) this matches, as whole
    /// words from their start, in any case, accents optional (`--place Lisbon`).
    public var place: String?
    /// Taken in this country: its ISO 3166-1 code or its English name (`--country PT`).
    public var country: String?
    /// The search box's text: dates and words, all of which must hold (``SearchTerms``).
    public var search: String?
    /// Taken inside a box of latitudes and longitudes (a map's cluster: `--box S,W,N,E`).
    public var box: Box?

    /// Latitudes from `south` up to (not including) `north`, longitudes from `west` east to
    /// `east`: across the antimeridian when `west` > `east`.
    public struct Box: Sendable, Equatable {
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double

        /// `38.6,-9.3,38.8,-9.0`: south, west, north, east in degrees, in range.
        public init?(parsing text: String) {
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let s = parts[0], let w = parts[1], let n = parts[2], let e = parts[3],
                (-90...90).contains(s), (-90...90).contains(n), s < n, (-180...180).contains(w), (-180...180).contains(e)
            else { return nil }
            (south, west, north, east) = (s, w, n, e)
        }
    }

    /// A circle on the earth: its centre (WGS 84 degrees) and radius in metres.
    public struct Place: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var radius: Double

        public init(latitude: Double, longitude: Double, radius: Double) {
            (self.latitude, self.longitude, self.radius) = (latitude, longitude, radius)
        }

        /// `48.8584,2.2945`: a latitude and a longitude, in range.
        public init?(parsing text: String, radius: Double) {
            let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]), (-90...90).contains(lat), (-180...180).contains(lon),
                radius.isFinite, radius > 0
            else { return nil }
            self.init(latitude: lat, longitude: lon, radius: radius)
        }

        /// `5km`, `300m`, `2.5 km` in metres.
        public static func distance(_ text: String) -> Double? {
            let t = text.lowercased().replacingOccurrences(of: " ", with: "")
            let (number, scale): (Substring, Double) = t.hasSuffix("km") ? (t.dropLast(2), 1000) : t.hasSuffix("m") ? (t.dropLast(1), 1) : (Substring(t), 1000)
            guard let value = Double(number), value.isFinite, value > 0 else { return nil }
            return value * scale
        }
    }
    public var sort: Sort = .captured
    public var descending = false
    public var limit: Int?
    /// Continue after this asset (from an earlier listing in the same order).
    public var after: AssetCursor?

    public init() {}

    /// The search's dates and words, read once.
    var searchTerms: SearchTerms? {
        search.map(SearchTerms.init(parsing:)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a capture date limits the listing (undated assets are then left out).
    var isDated: Bool {
        since != nil || until != nil || searchTerms?.days.isEmpty == false
    }

    /// Whether SQLite reads `text` as a date ("2025-05-26", "2025-05-26T09:27:06-05:00"),
    /// as `--since` and `--until` compare with it.
    public static func isValidDate(_ text: String) -> Bool {
        CatalogDates.isValid(text)
    }
}
