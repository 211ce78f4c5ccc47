import Containers
import Foundation
import GRDB

/// Filters and order for `camlib query`.
public struct AssetQuery: Sendable {
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
    /// Shell-style pattern on any of the asset's original file names, case-insensitive.
    public var name: String?
    public var sort: Sort = .captured
    public var descending = false
    public var limit: Int?

    public init() {}

    /// Asset ids matching the filters, in order.
    public func run(in library: PhotoLibrary) throws -> [Int64] {
        var conditions: [String] = []
        var args: [DatabaseValueConvertible?] = []
        if !kinds.isEmpty {
            conditions.append("kind IN (\(databaseQuestionMarks(count: kinds.count)))")
            args += kinds.map(\.rawValue)
        }
        if let make {
            conditions.append("make LIKE ? ESCAPE '\\'")
            args.append("%\(Self.escapeLike(make))%")
        }
        if let model {
            conditions.append("model LIKE ? ESCAPE '\\'")
            args.append("%\(Self.escapeLike(model))%")
        }
        if let since {
            conditions.append("julianday(captured_at) >= julianday(?)")
            args.append(since)
        }
        if let until {
            if Self.isBareDate(until) {
                conditions.append("julianday(captured_at) < julianday(?, '+1 day')")
            } else {
                conditions.append("julianday(captured_at) <= julianday(?)")
            }
            args.append(until)
        }
        switch pairedBy {
        case .none?: conditions.append("paired_by IS NULL")
        case .some(let rule): conditions.append("paired_by = ?"); args.append(rule.rawValue)
        case nil: break
        }
        for feature in has {
            switch feature {
            case .motion:
                conditions.append("kind = 'motion'")
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
        if let name {
            conditions.append(
                "EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = asset_overview.id AND lower(r.original_name) GLOB lower(?))")
            args.append(name)
        }
        let order: String
        let dir = descending ? "DESC" : "ASC"
        switch sort {
        case .captured: order = "captured_at IS NULL, julianday(captured_at) \(dir), id \(dir)"
        case .imported: order = "imported_at \(dir), id \(dir)"
        case .name: order = "lower(original_name) \(dir), id \(dir)"
        case .id: order = "id \(dir)"
        }
        var sql = "SELECT id FROM asset_overview"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY " + order
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let arguments = StatementArguments(args.map { $0?.databaseValue ?? .null })
        return try library.catalog.pool.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
    }

    static func escapeLike(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    static func isBareDate(_ s: String) -> Bool {
        s.count == 10 && s.filter { $0 == "-" }.count == 2 && !s.contains("T")
    }

    /// Whether SQLite reads `text` as a date ("2025-05-26", "2025-05-26T09:27:06-05:00").
    public static func isValidDate(_ text: String) -> Bool {
        guard let queue = try? DatabaseQueue() else { return false }
        let day = try? queue.read { db in try Double.fetchOne(db, sql: "SELECT julianday(?)", arguments: [text]) }
        return day != nil
    }
}
