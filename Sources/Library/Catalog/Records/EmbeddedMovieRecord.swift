import GRDB

/// A row of `embedded_movie`: where a Motion Photo's movie sat inside its still.
struct EmbeddedMovieRecord: Codable, Sendable {
    var resourceId: Int64
    var stillResourceId: Int64
    var offset: Int64
    var length: Int64
    var declaredBy: String
    var note: String?

    enum CodingKeys: String, CodingKey {
        case resourceId = "resource_id", stillResourceId = "still_resource_id", offset, length
        case declaredBy = "declared_by", note
    }
}

extension EmbeddedMovieRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "embedded_movie"
}
