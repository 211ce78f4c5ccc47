import GRDB

/// A row of `metadata`: what a still or movie file says about itself.
struct MetadataRecord: Codable, Sendable {
    var resourceId: Int64
    var format: String
    var capturedAt: String?
    var utcOffsetMinutes: Int?
    var make: String?
    var model: String?
    var software: String?
    var lensMake: String?
    var lensModel: String?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var width: Int?
    var height: Int?
    var orientation: Int
    var duration: Double?
    var videoCodec: String?
    var audioCodec: String?
    var frameRate: Double?
    var contentIdentifier: String?
    var livePhotoVideoIndex: Int64?
    var stillImageTime: Double?
    var warnings: String?
    /// The named place of its location (0025); nil without a location, far from every
    /// place, or not named yet (a file imported before places, until its job runs).
    var placeId: Int64?

    enum CodingKeys: String, CodingKey {
        case resourceId = "resource_id", format, capturedAt = "captured_at", utcOffsetMinutes = "utc_offset_minutes"
        case make, model, software, lensMake = "lens_make", lensModel = "lens_model", latitude, longitude, altitude
        case width, height, orientation, duration, videoCodec = "video_codec", audioCodec = "audio_codec"
        case frameRate = "frame_rate", contentIdentifier = "content_identifier"
        case livePhotoVideoIndex = "live_photo_video_index", stillImageTime = "still_image_time", warnings
        case placeId = "place_id"
    }
}

extension MetadataRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "metadata"

    /// Read column by column: GRDB's fast path, far cheaper than `Decodable` for the
    /// hundreds of rows a page of assets reads.
    init(row: Row) throws {
        resourceId = row[CodingKeys.resourceId.rawValue]
        format = row[CodingKeys.format.rawValue]
        capturedAt = row[CodingKeys.capturedAt.rawValue]
        utcOffsetMinutes = row[CodingKeys.utcOffsetMinutes.rawValue]
        make = row[CodingKeys.make.rawValue]
        model = row[CodingKeys.model.rawValue]
        software = row[CodingKeys.software.rawValue]
        lensMake = row[CodingKeys.lensMake.rawValue]
        lensModel = row[CodingKeys.lensModel.rawValue]
        latitude = row[CodingKeys.latitude.rawValue]
        longitude = row[CodingKeys.longitude.rawValue]
        altitude = row[CodingKeys.altitude.rawValue]
        width = row[CodingKeys.width.rawValue]
        height = row[CodingKeys.height.rawValue]
        orientation = row[CodingKeys.orientation.rawValue]
        duration = row[CodingKeys.duration.rawValue]
        videoCodec = row[CodingKeys.videoCodec.rawValue]
        audioCodec = row[CodingKeys.audioCodec.rawValue]
        frameRate = row[CodingKeys.frameRate.rawValue]
        contentIdentifier = row[CodingKeys.contentIdentifier.rawValue]
        livePhotoVideoIndex = row[CodingKeys.livePhotoVideoIndex.rawValue]
        stillImageTime = row[CodingKeys.stillImageTime.rawValue]
        warnings = row[CodingKeys.warnings.rawValue]
        placeId = row[CodingKeys.placeId.rawValue]
    }
}

extension MetadataRecord {
    /// The video codec (FFmpeg's name) of the movie `resource`, as import read it; for a
    /// render, which has no metadata row of its own, the codec of what it was rendered
    /// from (a render keeps its source's codec). Nil when unknown (Apple's renders).
    static func videoCodec(of resource: Int64, _ db: any CatalogConnection) throws -> String? {
        try db.fetchOne(
            String.self,
            """
            SELECT coalesce((SELECT video_codec FROM metadata WHERE resource_id = r.id),
                            (SELECT video_codec FROM metadata WHERE resource_id = r.derived_from))
            FROM resource r WHERE r.id = \(resource)
            """)
    }
}

extension MetadataRecord {
    /// The distinct lens models files were taken with, from 0026's index: each found from
    /// the one before it (a probe apiece), never a scan of the files.
    static func lensModels(_ db: any CatalogConnection) throws -> [String] {
        try db.fetchAll(
            String.self,
            """
            WITH RECURSIVE lens(model) AS (
                SELECT min(lens_model) FROM metadata WHERE lens_model IS NOT NULL
                UNION ALL
                SELECT (SELECT min(lens_model) FROM metadata WHERE lens_model > lens.model) FROM lens WHERE lens.model IS NOT NULL)
            SELECT model FROM lens WHERE model IS NOT NULL
            """)
    }
}

extension MetadataRecord {
    /// Each asset outside the trash that has a location, with it (its still's, else its
    /// movie's, as `asset_overview` gives it), in asset order: read a page at a time.
    static func forEachLocatedAsset(_ db: any CatalogConnection, _ body: (Int64, Double, Double) -> Void) throws {
        var previous: Int64?
        try db.forEachOfManyRows(
            """
            SELECT r.asset_id, m.latitude, m.longitude FROM metadata m JOIN resource r ON r.id = m.resource_id
            WHERE m.latitude IS NOT NULL AND m.longitude IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video')
              AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = r.asset_id)
            ORDER BY r.asset_id, CASE r.role WHEN 'photo' THEN 0 ELSE 1 END
            """
        ) { row in
            guard let asset: Int64 = row[0], asset != previous, let latitude: Double = row[1], let longitude: Double = row[2] else { return true }
            previous = asset
            body(asset, latitude, longitude)
            return true
        }
    }

    /// What changes whenever the located assets outside the trash may have: the newest
    /// file and asset (an import, a pairing), and how many assets are in the trash (a
    /// trashing, a restore, an emptying).
    static func locationsMark(_ db: any CatalogConnection) throws -> String {
        let row = try db.rows(
            """
            SELECT (SELECT coalesce(max(id), 0) FROM resource), (SELECT coalesce(max(id), 0) FROM asset),
                   (SELECT count(*) FROM trashed_asset)
            """
        ).first
        return (0..<3).map { String((row?[$0] as Int64?) ?? 0) }.joined(separator: ":")
    }
}
