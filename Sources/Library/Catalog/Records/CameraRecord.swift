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
    static func matching(make: String?, model: String?, _ db: any CatalogConnection) throws -> [Int64] {
        var conditions: [CatalogSQL] = []
        if let make { conditions.append("make <> '' AND \(db.dialect.like("make", SQLPattern.contains(make)))") }
        if let model { conditions.append("model <> '' AND \(db.dialect.like("model", SQLPattern.contains(model)))") }
        let filter: CatalogSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try db.fetchAll(Int64.self, "SELECT id FROM camera" + filter)
    }
}

extension CameraRecord {
    /// Every camera: a few hundred rows however large the library.
    static func fetchAll(_ db: any CatalogConnection) throws -> [CameraRecord] {
        try db.rows("SELECT id, make, model FROM camera ORDER BY make, model").map {
            CameraRecord(id: try $0.required(0), make: try $0.required(1), model: try $0.required(2))
        }
    }
}

/// Patterns for ``CatalogDialect/like(_:_:)``: `\` escapes `%`, `_` and itself.
enum SQLPattern {
    static func contains(_ text: String) -> String { "%\(escape(text))%" }
    static func prefix(_ text: String) -> String { "\(escape(text))%" }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
