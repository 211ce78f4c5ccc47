import GRDB

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
