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
    /// Written as SQL, not built with the query interface: a listing by make runs once a
    /// process, where the query interface's first use cost more than the listing's SQL.
    static func matching(make: String?, model: String?, _ db: Database) throws -> [Int64] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let make {
            conditions.append("make <> '' AND make LIKE ? ESCAPE '\\'")
            arguments += [SQLPattern.contains(make)]
        }
        if let model {
            conditions.append("model <> '' AND model LIKE ? ESCAPE '\\'")
            arguments += [SQLPattern.contains(model)]
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM camera" + filter), arguments: arguments)
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
