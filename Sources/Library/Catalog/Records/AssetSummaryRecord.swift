import GRDB

/// A row of `asset_summary` (migration 0008): what lists of assets are filtered and
/// ordered by, one row per asset, written by the schema's triggers from the tables
/// (never by camlib's code).
struct AssetSummaryRecord: Codable, Sendable {
    var assetId: Int64
    var kind: AssetKind
    var capturedAt: String?
    /// `julianday(captured_at)`: the moment in UTC, for order and date ranges.
    var capturedJulian: Double?
    var importedAt: String
    var cameraId: Int64?
    var sortName: String?
    var pairedBy: PairingRule?
    /// `,depth,hdrGainMap,`: the current version's auxiliary image types.
    var auxTypes: String?
    var edited: Bool
    var duration: Double?

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id", kind, capturedAt = "captured_at", capturedJulian = "captured_julian"
        case importedAt = "imported_at", cameraId = "camera_id", sortName = "sort_name", pairedBy = "paired_by"
        case auxTypes = "aux_types", edited, duration
    }
}

extension AssetSummaryRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "asset_summary"
}

/// A row of `camera`: a make and model some asset was taken with ('' where the file
/// names none).
struct CameraRecord: Codable, Sendable {
    var id: Int64
    var make: String
    var model: String

    enum CodingKeys: String, CodingKey {
        case id, make, model
    }
}

extension CameraRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "camera"

    /// Cameras whose make and model contain the given texts (any case, as SQL `LIKE`).
    static func matching(make: String?, model: String?, _ db: Database) throws -> [Int64] {
        var request = CameraRecord.all()
        if let make { request = request.filter(sql: "make <> '' AND make LIKE ? ESCAPE '\\'", arguments: [SQLPattern.contains(make)]) }
        if let model { request = request.filter(sql: "model <> '' AND model LIKE ? ESCAPE '\\'", arguments: [SQLPattern.contains(model)]) }
        return try request.select(Column(CodingKeys.id), as: Int64.self).fetchAll(db)
    }
}

/// `LIKE` patterns from user text: `%`, `_` and `\` match themselves.
enum SQLPattern {
    static func contains(_ text: String) -> String { "%\(escape(text))%" }
    static func prefix(_ text: String) -> String { "\(escape(text))%" }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
