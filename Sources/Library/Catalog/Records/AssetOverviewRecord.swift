import GRDB

/// A row of the `asset_overview` view: an asset's facts, from its still and, where the
/// still has none, its movie.
struct AssetOverviewRecord: Sendable {
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

    /// The view's columns this record reads, in the order it reads them.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, kind, capturedAt = "captured_at", make, model, lensModel = "lens_model", width, height, orientation
        case duration, videoCodec = "video_codec", audioCodec = "audio_codec", latitude, longitude, altitude
        case contentIdentifier = "content_identifier", pairedBy = "paired_by", pairingConfidence = "pairing_confidence"
        case originalName = "original_name", photoPath = "photo_path", videoPath = "video_path"
        case importedAt = "imported_at"
    }
}

extension AssetOverviewRecord: FetchableRecord, CatalogRecord {
    /// `SELECT` of the columns in ``CodingKeys`` order, the order `init(row:)` reads them in.
    static let selection = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")

    /// Read by position, from a row of ``selection``: by name, GRDB finds each column
    /// again for every row (the name lower-cased and hashed), which was 1,100 of a
    /// 50-asset listing's 1,804 look-ups and a twentieth of its work beyond start-up.
    init(row: Row) throws {
        try self.init(row: CatalogRow(row))
    }

    init(row: CatalogRow) throws {
        assert(row.columnNames == CodingKeys.allCases.map(\.rawValue), "an asset_overview row not selected with `selection`")
        id = try row.required(0)
        kind = try row.required(1)
        capturedAt = row[2]
        make = row[3]
        model = row[4]
        lensModel = row[5]
        width = row[6]
        height = row[7]
        orientation = row[8]
        duration = row[9]
        videoCodec = row[10]
        audioCodec = row[11]
        latitude = row[12]
        longitude = row[13]
        altitude = row[14]
        contentIdentifier = row[15]
        pairedBy = row[16]
        pairingConfidence = row[17]
        originalName = row[18]
        photoPath = row[19]
        videoPath = row[20]
        importedAt = try row.required(21)
    }
}

extension AssetOverviewRecord {
    static func fetchAll(ids: IDList, _ db: any CatalogConnection) throws -> [AssetOverviewRecord] {
        try ids.fetchAll(Self.self, db) { "SELECT \(selection) FROM asset_overview WHERE id IN \($0)" }
    }
}
