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
    public var sort: Sort = .captured
    public var descending = false
    public var limit: Int?
    /// Continue after this asset (from an earlier listing in the same order).
    public var after: AssetCursor?

    public init() {}

    /// Whether SQLite reads `text` as a date ("2025-05-26", "2025-05-26T09:27:06-05:00"),
    /// as `--since` and `--until` compare with it.
    public static func isValidDate(_ text: String) -> Bool {
        CatalogDates.isValid(text)
    }
}
