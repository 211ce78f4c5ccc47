import Containers
import Foundation
import GRDB

/// A row of `aux_image`: one auxiliary image of a still.
struct AuxImageRecord: Codable, Sendable {
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

    /// The table's columns this record reads, in the order it reads them.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, assetId = "asset_id", resourceId = "resource_id", type, urn, source, width, height
        case bitDepth = "bit_depth", channels, path, sha256, bytes, encoding, problem, addedAt = "added_at"
    }
}

extension AuxImageRecord: PositionalRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "aux_image"

    init(row: CatalogRow) throws {
        assert(Self.isSelected(in: row), "an aux_image row not selected with `databaseSelection`")
        id = row[0]
        assetId = try row.required(1)
        resourceId = try row.required(2)
        type = try row.required(3)
        urn = row[4]
        source = try row.required(5)
        width = row[6]
        height = row[7]
        bitDepth = row[8]
        channels = row[9]
        path = row[10]
        sha256 = row[11]
        bytes = row[12]
        encoding = row[13]
        problem = row[14]
        addedAt = try row.required(15)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Whether the still `resource` already lists the image found at `source`.
    static func isListed(resource: Int64, source: String, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(Int64.self, "SELECT id FROM aux_image WHERE resource_id = \(resource) AND source = \(source) LIMIT 1") != nil
    }

    /// One auxiliary image.
    static func find(_ id: Int64, _ db: any CatalogConnection) throws -> AuxImageRecord? {
        try db.fetchAll(Self.self, "SELECT \(CatalogSQL(sql: selection(of: "x"))) FROM aux_image x WHERE x.id = \(id)").first
    }
}

extension AuxImageRecord {
    /// These assets' auxiliary images, in the order they were found.
    static func fetchAll(assets: IDList, _ db: any CatalogConnection) throws -> [AuxImageRecord] {
        try assets.fetchAll(Self.self, db) { "SELECT \(selection(of: "x")) FROM aux_image x WHERE x.asset_id IN \($0) ORDER BY x.id" }
    }

    /// The image's PNG is made: its bytes are these.
    static func setMade(_ id: Int64?, sha256: String, bytes: Int64, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE aux_image SET sha256 = \(sha256), bytes = \(bytes), problem = NULL WHERE id = \(id)")
    }

    /// The image cannot be decoded from its still: it has no PNG, and `reason` says why.
    static func setUndecodable(_ id: Int64?, reason: String, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE aux_image SET path = NULL, sha256 = NULL, bytes = NULL, problem = \(reason) WHERE id = \(id)")
    }

    /// The asset's `type` image held by `resource`; else, as a render made by an edit
    /// carries its original's images without rows of its own, the one a current file of
    /// the asset holds (the gallery names the still it shows).
    static func fetchExtracted(asset: Int64, resource: Int64, type: AuxiliaryImageType, _ db: any CatalogConnection) throws -> AuxImageRecord? {
        try db.fetchAll(
            AuxImageRecord.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "x"))) FROM aux_image x
            WHERE x.asset_id = \(asset) AND x.type = \(type) AND x.path IS NOT NULL
              AND (x.resource_id = \(resource) OR x.resource_id IN (SELECT r.id FROM current_resource r WHERE r.asset_id = \(asset)))
            ORDER BY x.resource_id = \(resource) DESC, x.id LIMIT 1
            """
        ).first
    }
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
