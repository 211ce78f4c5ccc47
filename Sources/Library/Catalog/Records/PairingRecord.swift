import GRDB

/// Which rule paired a Live Photo's still and movie.
public enum PairingRule: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case contentIdentifier, stem
}

/// A row of `pairing`: how a Live Photo's still and movie were found to belong together.
struct PairingRecord: Codable, Sendable {
    var assetId: Int64
    var photoResourceId: Int64
    var videoResourceId: Int64
    var rule: PairingRule
    var contentIdentifier: String?
    var confidence: Double
    var pairedAt: String

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id", photoResourceId = "photo_resource_id", videoResourceId = "video_resource_id", rule
        case contentIdentifier = "content_identifier", confidence, pairedAt = "paired_at"
    }
}

extension PairingRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "pairing"
}

/// Half of a Live Photo waiting for its partner: a still alone in a `photo` asset, or a
/// movie alone in a `video` asset, with the facts pairing weighs.
struct UnpairedHalf: Decodable, FetchableRecord {
    var id: Int64
    var assetId: Int64
    var originalName: String?
    var capturedAt: String?
    var duration: Double?

    enum CodingKeys: String, CodingKey {
        case id, assetId = "asset_id", originalName = "original_name", capturedAt = "captured_at", duration
    }

    /// Halves in `role` (photo or video) carrying `contentIdentifier`, oldest first.
    static func carrying(contentIdentifier: String, role: ResourceRole, _ db: any CatalogConnection) throws -> [UnpairedHalf] {
        try fetchAll("m.content_identifier = \(contentIdentifier)", role: role, db)
    }

    /// Halves in `role` imported from `folder` that carry no content identifier, oldest first.
    static func withoutIdentifier(importedFrom folder: String, role: ResourceRole, _ db: any CatalogConnection) throws -> [UnpairedHalf] {
        try fetchAll("r.source_dir = \(folder) AND m.content_identifier IS NULL", role: role, db)
    }

    private static func fetchAll(_ condition: CatalogSQL, role: ResourceRole, _ db: any CatalogConnection) throws -> [UnpairedHalf] {
        // Alone: the asset's kind is still the half's own (photo or video), not live.
        let kind: AssetKind = role == .photo ? .photo : .video
        return try db.fetchAll(
            UnpairedHalf.self,
            """
            SELECT r.id, r.asset_id, r.original_name, m.captured_at, m.duration
            FROM resource r
            JOIN metadata m ON m.resource_id = r.id
            JOIN asset a ON a.id = r.asset_id
            WHERE \(condition) AND r.role = \(role) AND a.kind = \(kind)
            ORDER BY r.id
            """)
    }
}
