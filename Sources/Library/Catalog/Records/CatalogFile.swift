import GRDB

/// A file the catalog names, from `resource` or `aux_image`, with what was recorded of it
/// when it was written: what `camlib verify` checks the library folder against.
struct CatalogFile: Sendable {
    enum Source: String, Sendable { case resource, auxImage }

    var source: Source
    /// The row's id in its table.
    var id: Int64
    var assetId: Int64
    /// `resource.role`, or `aux:TYPE` for an auxiliary image.
    var role: String
    /// Relative to the library folder, as the catalog holds it.
    var path: String
    var sha256: String
    var bytes: Int64
    /// An original, copied in byte for byte (not made by camlib from another file).
    var isOriginal: Bool
    var addedAt: String
    var originalName: String?
    /// What camlib made it from: the file a thumbnail shows, the still a Motion Photo's
    /// movie was cut out of (`resource.derived_from`), the still holding an auxiliary
    /// image (`aux_image.resource_id`). nil for an original.
    var madeFrom: Int64?
    /// An auxiliary image's place in its still (`heif:item/49`).
    var auxSource: String?

    /// Up to `limit` files of `source` with ids above `after`, in id order: a catalog of
    /// any size is read a page at a time, each page in a read of its own.
    static func page(_ source: Source, after: Int64, limit: Int, _ db: any CatalogConnection) throws -> [CatalogFile] {
        try fetch(source, where: "id > \(after)", order: "ORDER BY id LIMIT \(limit)", db)
    }

    /// How many files ``page(_:after:limit:_:)`` lists, of both sources.
    static func count(_ db: any CatalogConnection) throws -> Int {
        try db.fetchOne(
            Int.self, "SELECT (SELECT count(*) FROM resource) + (SELECT count(*) FROM aux_image WHERE path IS NOT NULL AND sha256 IS NOT NULL)")
            ?? 0
    }

    /// The files of one asset (of `source`), in id order.
    static func all(_ source: Source, of asset: Int64, _ db: any CatalogConnection) throws -> [CatalogFile] {
        try fetch(source, where: "asset_id = \(asset)", order: "ORDER BY id", db)
    }

    private static func fetch(_ source: Source, where condition: CatalogSQL, order: CatalogSQL, _ db: any CatalogConnection) throws
        -> [CatalogFile]
    {
        let sql: CatalogSQL
        switch source {
        case .resource:
            // Originals: the still and movie imported (not cut out of a still), and the
            // sidecars and renders Apple made, copied in as they were.
            sql = """
                SELECT id, asset_id, role, path, sha256, bytes,
                       (role IN \(CatalogSQL(sql: ResourceRole.primarySQL)) AND derived_from IS NULL) OR (role IN ('adjustmentSidecar', 'renderedPhoto', 'renderedVideo') AND original_name IS NOT NULL),
                       added_at, original_name, derived_from, NULL
                FROM resource WHERE \(condition) \(order)
                """
        case .auxImage:
            // PNGs made (a row without sha256 names one not asked for yet).
            sql = """
                SELECT id, asset_id, 'aux:' || type, path, sha256, bytes, 0, added_at, NULL, resource_id, source
                FROM aux_image WHERE \(condition) AND path IS NOT NULL AND sha256 IS NOT NULL \(order)
                """
        }
        return try db.rows(sql).map { row in
            CatalogFile(
                source: source, id: try row.required(0), assetId: try row.required(1), role: try row.required(2), path: try row.required(3),
                sha256: try row.required(4), bytes: try row.required(5), isOriginal: try row.required(6), addedAt: try row.required(7),
                originalName: row[8], madeFrom: row[9], auxSource: row[10])
        }
    }

    /// A file camlib made (`source`: a resource or an auxiliary image) has new bytes,
    /// made again from what it was made from.
    static func setBytes(_ source: Source, id: Int64, sha256: String, bytes: Int64, crc32: UInt32?, _ db: any CatalogConnection) throws {
        switch source {
        case .resource: try db.execute("UPDATE resource SET sha256 = \(sha256), bytes = \(bytes), crc32 = \(crc32) WHERE id = \(id)")
        case .auxImage: try db.execute("UPDATE aux_image SET sha256 = \(sha256), bytes = \(bytes) WHERE id = \(id)")
        }
    }

    /// Whether a catalog row names `path`: a file, or an auxiliary image's PNG.
    static func isNamed(_ path: String, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(
            Bool.self, "SELECT EXISTS (SELECT 1 FROM resource WHERE path = \(path)) OR EXISTS (SELECT 1 FROM aux_image WHERE path = \(path))") ?? false
    }

    /// Whether some file of the library has these bytes (what previews, proxies and
    /// thumbnails are named after).
    static func hasBytes(_ sha256: String, _ db: any CatalogConnection) throws -> Bool {
        try db.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM resource WHERE sha256 = \(sha256))") ?? false
    }
}
