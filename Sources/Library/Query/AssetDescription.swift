import Containers
import Foundation
import GRDB

/// One asset as `camlib query --json` and `camlib show --json` print it. This is a public
/// contract (see README.md): names are kept; fields are only ever added.
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
        public var encoding: AuxiliaryEncoding?
        public var problem: String?

        enum CodingKeys: String, CodingKey {
            case type, urn, width, height, bitDepth, path, source, channels, encoding, problem
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

    enum CodingKeys: String, CodingKey {
        case id, kind, capturedAt, make, model, width, height, orientation, contentIdentifier, pairing, resources
        case lensModel, location, duration, videoCodec, audioCodec, importedAt, aux, adjustments, stillImageTime
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
        try c.encode(duration, forKey: .duration)
        try c.encode(videoCodec, forKey: .videoCodec)
        try c.encode(audioCodec, forKey: .audioCodec)
        try c.encode(importedAt, forKey: .importedAt)
        try c.encode(aux, forKey: .aux)
        try c.encode(adjustments, forKey: .adjustments)
        try c.encode(stillImageTime, forKey: .stillImageTime)
    }

    /// The original the asset is named after: its still, else its movie.
    public var primaryOriginal: Resource? {
        resources.first { $0.role == .photo } ?? resources.first { $0.role == .video || $0.role == .pairedVideo }
    }
}

extension PhotoLibrary {
    /// Full descriptions of the given assets, in the given order.
    public func describe(_ ids: [Int64]) throws -> [AssetDescription] {
        guard !ids.isEmpty else { return [] }
        return try catalog.pool.read { db in
            var out: [Int64: AssetDescription] = [:]
            // In chunks, to stay under SQLite's bound-parameter limit.
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let marks = databaseQuestionMarks(count: chunk.count)
                let args = StatementArguments(chunk)
                for row in try Row.fetchAll(db, sql: "SELECT * FROM asset_overview WHERE id IN (\(marks))", arguments: args) {
                    let id: Int64 = row["id"]
                    out[id] = AssetDescription(
                        id: id, kind: row["kind"], capturedAt: row["captured_at"], make: row["make"], model: row["model"],
                        width: row["width"], height: row["height"], orientation: row["orientation"],
                        contentIdentifier: row["content_identifier"],
                        pairing: (row["paired_by"] as PairingRule?).map {
                            AssetDescription.Pairing(rule: $0, confidence: row["pairing_confidence"])
                        },
                        resources: [], lensModel: row["lens_model"],
                        location: (row["latitude"] as Double?).flatMap { lat in
                            (row["longitude"] as Double?).map { GeoLocation(latitude: lat, longitude: $0, altitude: row["altitude"]) }
                        },
                        duration: row["duration"], videoCodec: row["video_codec"], audioCodec: row["audio_codec"],
                        importedAt: row["imported_at"])
                }
                // Renders of adjustments that are not current are history, not resources.
                let resources = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT r.*, src.role AS source_role
                        FROM current_resource r
                        LEFT JOIN resource src ON src.id = r.derived_from
                        WHERE r.asset_id IN (\(marks))
                        ORDER BY r.asset_id, CASE r.role WHEN 'photo' THEN 0 WHEN 'pairedVideo' THEN 1 WHEN 'video' THEN 1
                                 WHEN 'thumbnail' THEN 2 ELSE 3 END, src.role = 'photo' DESC, r.id
                        """, arguments: args)
                for row in resources {
                    let assetID: Int64 = row["asset_id"]
                    guard out[assetID] != nil else { continue }
                    out[assetID]!.resources.append(
                        AssetDescription.Resource(
                            role: row["role"], path: absolute(row["path"]).path, sha256: row["sha256"], bytes: row["bytes"],
                            mime: row["mime"], of: row["source_role"], originalName: row["original_name"]))
                }
                for row in try Row.fetchAll(
                    db, sql: "SELECT * FROM adjustment_history WHERE asset_id IN (\(marks)) ORDER BY asset_id, adjustment_id", arguments: args)
                {
                    let assetID: Int64 = row["asset_id"]
                    guard out[assetID] != nil else { continue }
                    out[assetID]!.adjustments.append(
                        AssetDescription.Adjustment(
                            formatIdentifier: row["format_identifier"], formatVersion: row["format_version"], data: row["data"],
                            createdAt: row["created_at"], current: row["current"]))
                }
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT r.asset_id, m.still_image_time FROM metadata m JOIN resource r ON r.id = m.resource_id
                        WHERE r.asset_id IN (\(marks)) AND r.role = 'pairedVideo' AND m.still_image_time IS NOT NULL
                        """, arguments: args)
                {
                    let assetID: Int64 = row["asset_id"]
                    out[assetID]?.stillImageTime = row["still_image_time"]
                }
                let decoder = JSONDecoder()
                for row in try Row.fetchAll(db, sql: """
                        SELECT x.* FROM aux_image x JOIN current_resource r ON r.id = x.resource_id
                        WHERE x.asset_id IN (\(marks)) ORDER BY x.asset_id, x.id
                        """, arguments: args) {
                    let assetID: Int64 = row["asset_id"]
                    guard out[assetID] != nil else { continue }
                    let encoding = (row["encoding"] as String?).flatMap { try? decoder.decode(AuxiliaryEncoding.self, from: Data($0.utf8)) }
                    out[assetID]!.aux.append(
                        AssetDescription.Aux(
                            type: row["type"], urn: row["urn"], width: row["width"], height: row["height"], bitDepth: row["bit_depth"],
                            path: (row["path"] as String?).map { absolute($0).path }, source: row["source"], channels: row["channels"],
                            encoding: encoding, problem: row["problem"]))
                }
            }
            return ids.compactMap { out[$0] }
        }
    }

    /// The asset a user names: its id ("12"), a path of one of its files in the library,
    /// or any file elsewhere whose bytes the library holds (found by sha256).
    public func findAsset(_ reference: String) throws -> Int64 {
        if let id = Int64(reference) {
            if try catalog.pool.read({ db in try Bool.fetchOne(db, sql: "SELECT 1 FROM asset WHERE id = ?", arguments: [id]) }) == true {
                return id
            }
            throw LibraryError.assetNotFound("with id \(id)")
        }
        let url = LibraryLocation.absolute(reference)
        let rel = relative(url)
        if let id = try catalog.pool.read({ db in
            try Int64.fetchOne(db, sql: "SELECT asset_id FROM resource WHERE path = ?", arguments: [rel])
        }) {
            return id
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw LibraryError.assetNotFound("\(reference) (neither an id nor an existing file)")
        }
        let sha = try FileReading.sha256(of: url.path)
        if let id = try catalog.pool.read({ db in
            try Int64.fetchOne(db, sql: "SELECT asset_id FROM resource WHERE sha256 = ? ORDER BY id LIMIT 1", arguments: [sha])
        }) {
            return id
        }
        throw LibraryError.assetNotFound("holding the bytes of \(url.path)")
    }
}
