import Containers
import Foundation
import GRDB

/// A row of `asset`.
struct AssetRecord: Codable, Sendable, CatalogRecord, MutablePersistableRecord {
    static let databaseTableName = "asset"
    var id: Int64?
    var kind: AssetKind
    var importedAt: String

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `resource`.
struct ResourceRecord: Codable, Sendable, CatalogRecord, MutablePersistableRecord {
    static let databaseTableName = "resource"
    var id: Int64?
    var assetId: Int64
    var role: ResourceRole
    var path: String
    var sha256: String
    var bytes: Int64
    var mime: String
    var derivedFrom: Int64?
    var originalName: String?
    var sourceDir: String?
    var addedAt: String

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `metadata`.
struct MetadataRecord: Codable, Sendable, CatalogRecord, PersistableRecord {
    static let databaseTableName = "metadata"
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
}

/// A row of `pairing`.
struct PairingRecord: Codable, Sendable, CatalogRecord, PersistableRecord {
    static let databaseTableName = "pairing"
    var assetId: Int64
    var photoResourceId: Int64
    var videoResourceId: Int64
    var rule: PairingRule
    var contentIdentifier: String?
    var confidence: Double
    var pairedAt: String
}

/// A row of `aux_image`.
struct AuxImageRecord: Codable, Sendable, CatalogRecord, MutablePersistableRecord {
    static let databaseTableName = "aux_image"
    var id: Int64?
    var assetId: Int64
    var resourceId: Int64
    var type: AuxiliaryImageType
    var urn: String?
    var source: String
    var width: Int?
    var height: Int?
    var bitDepth: Int?
    var channels: Int?
    var path: String?
    var sha256: String?
    var bytes: Int64?
    /// JSON of ``AuxiliaryEncoding``.
    var encoding: String?
    var problem: String?
    var addedAt: String

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `embedded_movie`.
struct EmbeddedMovieRecord: Codable, Sendable, CatalogRecord, PersistableRecord {
    static let databaseTableName = "embedded_movie"
    var resourceId: Int64
    var stillResourceId: Int64
    var offset: Int64
    var length: Int64
    var declaredBy: String
    var note: String?
}

extension AuxiliaryImageType: DatabaseValueConvertible {}

extension AuxiliaryEncoding {
    /// Compact JSON with sorted keys, as stored in `aux_image.encoding`.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A catalog row: Swift's camelCase properties are the SQL's snake_case columns.
protocol CatalogRecord: FetchableRecord, EncodableRecord {}

extension CatalogRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

/// What an asset is, as a user sees it.
public enum AssetKind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case photo, live, video, motion
}

/// What a file is to its asset. The raw values are the public JSON and SQL names.
public enum ResourceRole: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case photo, pairedVideo, video, thumbnail, adjustmentSidecar, renderedPhoto, renderedVideo

    /// Originals of the asset itself; each exists once in the whole library.
    public var isPrimaryOriginal: Bool { self == .photo || self == .pairedVideo || self == .video }
}

/// Which rule paired a Live Photo's still and movie.
public enum PairingRule: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case contentIdentifier, stem
}

/// UTC now, ISO 8601 with milliseconds: "2026-11-22T10:15:30.123Z".
func utcNow() -> String {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: Date())
}
