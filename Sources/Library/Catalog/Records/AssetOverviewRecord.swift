import GRDB

/// A row of the `asset_overview` view: an asset's facts, from its still and, where the
/// still has none, its movie.
struct AssetOverviewRecord: Decodable, Sendable {
    var id: Int64
    var kind: AssetKind
    var capturedAt: String?
    var make: String?
    var model: String?
    var lensModel: String?
    var width: Int?
    var height: Int?
    var orientation: Int?
    var duration: Double?
    var videoCodec: String?
    var audioCodec: String?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var contentIdentifier: String?
    var pairedBy: PairingRule?
    var pairingConfidence: Double?
    var originalName: String?
    var photoPath: String?
    var videoPath: String?
    var importedAt: String

    enum CodingKeys: String, CodingKey {
        case id, kind, capturedAt = "captured_at", make, model, lensModel = "lens_model", width, height, orientation
        case duration, videoCodec = "video_codec", audioCodec = "audio_codec", latitude, longitude, altitude
        case contentIdentifier = "content_identifier", pairedBy = "paired_by", pairingConfidence = "pairing_confidence"
        case originalName = "original_name", photoPath = "photo_path", videoPath = "video_path"
        case importedAt = "imported_at"
    }
}

extension AssetOverviewRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "asset_overview"

    /// Read column by column: GRDB's fast path, far cheaper than `Decodable` for the
    /// hundreds of rows a page of assets reads.
    init(row: Row) throws {
        id = row[CodingKeys.id.rawValue]
        kind = row[CodingKeys.kind.rawValue]
        capturedAt = row[CodingKeys.capturedAt.rawValue]
        make = row[CodingKeys.make.rawValue]
        model = row[CodingKeys.model.rawValue]
        lensModel = row[CodingKeys.lensModel.rawValue]
        width = row[CodingKeys.width.rawValue]
        height = row[CodingKeys.height.rawValue]
        orientation = row[CodingKeys.orientation.rawValue]
        duration = row[CodingKeys.duration.rawValue]
        videoCodec = row[CodingKeys.videoCodec.rawValue]
        audioCodec = row[CodingKeys.audioCodec.rawValue]
        latitude = row[CodingKeys.latitude.rawValue]
        longitude = row[CodingKeys.longitude.rawValue]
        altitude = row[CodingKeys.altitude.rawValue]
        contentIdentifier = row[CodingKeys.contentIdentifier.rawValue]
        pairedBy = row[CodingKeys.pairedBy.rawValue]
        pairingConfidence = row[CodingKeys.pairingConfidence.rawValue]
        originalName = row[CodingKeys.originalName.rawValue]
        photoPath = row[CodingKeys.photoPath.rawValue]
        videoPath = row[CodingKeys.videoPath.rawValue]
        importedAt = row[CodingKeys.importedAt.rawValue]
    }
}

extension AssetOverviewRecord {
    static func fetchAll(ids: IDList, _ db: Database) throws -> [AssetOverviewRecord] {
        try ids.fetchAll(Self.self, db) { "SELECT * FROM asset_overview WHERE id IN \($0)" }
    }
}

