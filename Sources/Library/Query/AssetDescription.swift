import Containers
import Foundation

/// One asset as `camlib query --json` and `camlib show --json` print it. This is a public
/// contract (docs/reference/json.md): names are kept; fields are only ever added.
public struct AssetDescription: Codable, Sendable, Equatable {
    public struct Pairing: Codable, Sendable, Equatable {
        public var rule: PairingRule
        public var confidence: Double
    }

    public struct Resource: Codable, Sendable, Equatable {
        public var role: ResourceRole
        /// Absolute path.
        public var path: String
        public var sha256: String
        public var bytes: Int64
        public var mime: String
        /// For derived files (thumbnails): the role of the file they were made from.
        public var of: ResourceRole?
        /// For originals: the file name it had when imported.
        public var originalName: String?
        /// ZIP's CRC-32 of its bytes, recorded as the file was written; absent for files
        /// that entered the library before catalog migration 0023.
        public var crc32: UInt32?
    }

    /// An auxiliary image of the asset's still (`aux` in the JSON).
    public struct Aux: Codable, Sendable, Equatable {
        public var type: AuxiliaryImageType
        public var urn: String?
        public var width: Int?
        public var height: Int?
        public var bitDepth: Int?
        /// Absolute path of the extracted PNG; null when it could not be decoded.
        public var path: String?
        public var source: String
        public var channels: Int?
        public var problem: String?
        /// How samples map to distance, and the item's XMP properties. From the catalog
        /// it is kept as the JSON stored there, decoded only when asked for: a listing
        /// writes it out as it is.
        public var encoding: AuxiliaryEncoding? {
            get {
                switch storedEncoding {
                case .decoded(let encoding): encoding
                case .json(let json): try? JSONDecoder().decode(AuxiliaryEncoding.self, from: Data(json.utf8))
                }
            }
            set { storedEncoding = .decoded(newValue) }
        }
        var storedEncoding: StoredEncoding

        enum StoredEncoding: Sendable {
            case decoded(AuxiliaryEncoding?)
            /// `aux_image.encoding`: ``AuxiliaryEncoding/json``, compact with sorted keys.
            case json(String)
        }

        public init(
            type: AuxiliaryImageType, urn: String?, width: Int?, height: Int?, bitDepth: Int?, path: String?, source: String,
            channels: Int?, encoding: AuxiliaryEncoding?, problem: String?
        ) {
            (self.type, self.urn, self.width, self.height, self.bitDepth) = (type, urn, width, height, bitDepth)
            (self.path, self.source, self.channels, self.problem) = (path, source, channels, problem)
            storedEncoding = .decoded(encoding)
        }

        enum CodingKeys: String, CodingKey {
            case type, urn, width, height, bitDepth, path, source, channels, encoding, problem
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                type: try c.decode(AuxiliaryImageType.self, forKey: .type), urn: try c.decodeIfPresent(String.self, forKey: .urn),
                width: try c.decodeIfPresent(Int.self, forKey: .width), height: try c.decodeIfPresent(Int.self, forKey: .height),
                bitDepth: try c.decodeIfPresent(Int.self, forKey: .bitDepth), path: try c.decodeIfPresent(String.self, forKey: .path),
                source: try c.decode(String.self, forKey: .source), channels: try c.decodeIfPresent(Int.self, forKey: .channels),
                encoding: try c.decodeIfPresent(AuxiliaryEncoding.self, forKey: .encoding),
                problem: try c.decodeIfPresent(String.self, forKey: .problem))
        }

        /// Contract fields are always present, as null when unknown.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .type)
            try c.encode(urn, forKey: .urn)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(bitDepth, forKey: .bitDepth)
            try c.encode(path, forKey: .path)
            try c.encode(source, forKey: .source)
            try c.encode(channels, forKey: .channels)
            try c.encode(encoding, forKey: .encoding)
            try c.encode(problem, forKey: .problem)
        }

        public static func == (a: Aux, b: Aux) -> Bool {
            (a.type, a.urn, a.width, a.height, a.bitDepth) == (b.type, b.urn, b.width, b.height, b.bitDepth)
                && (a.path, a.source, a.channels, a.problem) == (b.path, b.source, b.channels, b.problem) && a.encoding == b.encoding
        }
    }

    /// An edit recipe of the asset (`adjustments` in the JSON), oldest first.
    public struct Adjustment: Codable, Sendable, Equatable {
        public var formatIdentifier: String
        public var formatVersion: String
        /// The recipe: camlib's is JSON with sorted keys.
        public var data: String
        public var createdAt: String
        /// Whether this adjustment is the asset's current version.
        public var current: Bool
    }

    public var id: Int64
    public var kind: AssetKind
    /// ISO 8601, with the UTC offset when known.
    public var capturedAt: String?
    public var make: String?
    public var model: String?
    /// As displayed.
    public var width: Int?
    public var height: Int?
    /// EXIF 1–8.
    public var orientation: Int?
    public var contentIdentifier: String?
    public var pairing: Pairing?
    public var resources: [Resource]
    public var lensModel: String?
    public var location: GeoLocation?
    /// What the location is called: city, region and country, named offline from
    /// GeoNames' places (null without a location, far from every place, or while a library
    /// made before places waits for its `place` jobs).
    public var place: PlaceName?
    /// Seconds, for videos and Live Photos.
    public var duration: Double?
    public var videoCodec: String?
    public var audioCodec: String?
    public var importedAt: String
    public var aux: [Aux] = []
    public var adjustments: [Adjustment] = []
    /// A Live Photo's photo display time: seconds into its movie at which the still was
    /// taken (Apple's still-image-time track); null without one.
    public var stillImageTime: Double?
    /// In a listing (`camlib query --json`): where the next page starts, for `--after`.
    /// Absent elsewhere.
    public var cursor: String?
    /// When the asset went into the trash (UTC); absent for an asset that is not there.
    public var trashedAt: String?
    /// Marked as a favourite.
    public var favorite = false
    /// The albums it is in, and its keywords, by name.
    public var albums: [String] = []
    public var keywords: [String] = []

    enum CodingKeys: String, CodingKey {
        case id, kind, capturedAt, make, model, width, height, orientation, contentIdentifier, pairing, resources
        case lensModel, location, place, duration, videoCodec, audioCodec, importedAt, aux, adjustments, stillImageTime, cursor
        case trashedAt, favorite, albums, keywords
    }

    /// Contract fields are always present, as null when unknown.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(capturedAt, forKey: .capturedAt)
        try c.encode(make, forKey: .make)
        try c.encode(model, forKey: .model)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(orientation, forKey: .orientation)
        try c.encode(contentIdentifier, forKey: .contentIdentifier)
        try c.encode(pairing, forKey: .pairing)
        try c.encode(resources, forKey: .resources)
        try c.encode(lensModel, forKey: .lensModel)
        try c.encode(location, forKey: .location)
        try c.encode(place, forKey: .place)
        try c.encode(duration, forKey: .duration)
        try c.encode(videoCodec, forKey: .videoCodec)
        try c.encode(audioCodec, forKey: .audioCodec)
        try c.encode(importedAt, forKey: .importedAt)
        try c.encode(aux, forKey: .aux)
        try c.encode(adjustments, forKey: .adjustments)
        try c.encode(stillImageTime, forKey: .stillImageTime)
        try c.encodeIfPresent(cursor, forKey: .cursor)
        try c.encodeIfPresent(trashedAt, forKey: .trashedAt)
        try c.encode(favorite, forKey: .favorite)
        try c.encode(albums, forKey: .albums)
        try c.encode(keywords, forKey: .keywords)
    }

    /// The original the asset is named after: its still, else its movie.
    public var primaryOriginal: Resource? {
        resources.first { $0.role == .photo } ?? resources.first { $0.role == .video || $0.role == .pairedVideo }
    }
}
