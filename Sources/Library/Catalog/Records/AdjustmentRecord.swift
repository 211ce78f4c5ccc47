import GRDB

/// Who made an adjustment: camlib's own filters, or Apple Photos (read from an `.AAE`).
enum AdjustmentOrigin: String, Codable, Sendable, DatabaseValueConvertible {
    case camlib, apple
}

/// A row of `adjustment`: one edit recipe of an asset, rendered from its original.
struct AdjustmentRecord: Codable, Sendable {
    var id: Int64?
    var assetId: Int64
    var formatIdentifier: String
    var formatVersion: String
    var data: String
    var extendsId: Int64?
    var origin: AdjustmentOrigin
    var sidecarResourceId: Int64?
    var createdAt: String

    /// The table's columns this record reads, in the order it reads them.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, assetId = "asset_id", formatIdentifier = "format_identifier", formatVersion = "format_version", data
        case extendsId = "extends_id", origin, sidecarResourceId = "sidecar_resource_id", createdAt = "created_at"
    }
}

extension AdjustmentRecord: PositionalRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "adjustment"

    init(row: CatalogRow) throws {
        assert(Self.isSelected(in: row), "an adjustment row not selected with `databaseSelection`")
        id = row[0]
        assetId = try row.required(1)
        formatIdentifier = try row.required(2)
        formatVersion = try row.required(3)
        data = try row.required(4)
        extendsId = row[5]
        origin = try row.required(6)
        sidecarResourceId = row[7]
        createdAt = try row.required(8)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The asset's current adjustment: nil when its current version is the original.
    static func current(of asset: Int64, _ db: any CatalogConnection) throws -> AdjustmentRecord? {
        try db.fetchAll(
            AdjustmentRecord.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "d"))) FROM asset_version v JOIN adjustment d ON d.id = v.current_adjustment_id
            WHERE v.asset_id = \(asset)
            """
        ).first
    }

    /// The asset's latest Apple Photos edit (from `IMG_1234.AAE`, not the camera's
    /// `IMG_O1234.AAE`).
    static func appleEdit(of asset: Int64, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(
            Int64.self,
            """
            SELECT d.id FROM adjustment d JOIN resource r ON r.id = d.sidecar_resource_id
            WHERE d.asset_id = \(asset) AND d.origin = \(AdjustmentOrigin.apple)
              AND r.original_name NOT LIKE 'IMG\\_O%' ESCAPE '\\'
            ORDER BY d.id DESC LIMIT 1
            """)
    }

    /// Assets whose current version is a camlib edit that has no render of a still or
    /// movie the asset has (a Live Photo's edit renders both), with the role missing; of
    /// one asset when `asset` is given.
    static func currentWithoutRender(asset: Int64? = nil, _ db: any CatalogConnection) throws -> [(asset: Int64, adjustment: Int64, role: ResourceRole)] {
        let only: CatalogSQL = asset.map { "AND v.asset_id = \($0) AND need.asset_id = \($0)" } ?? ""
        return try db.rows(
            """
                SELECT v.asset_id, v.current_adjustment_id, need.role
                FROM asset_version v
                JOIN adjustment d ON d.id = v.current_adjustment_id AND d.origin = \(AdjustmentOrigin.camlib)
                JOIN (SELECT DISTINCT r.asset_id,
                             CASE r.role WHEN 'photo' THEN 'renderedPhoto' ELSE 'renderedVideo' END AS role
                      FROM resource r JOIN asset a ON a.id = r.asset_id
                      WHERE r.role IN ('photo', 'video') OR (r.role = 'pairedVideo' AND a.kind = 'live')) need
                  ON need.asset_id = v.asset_id
                WHERE NOT EXISTS (SELECT 1 FROM adjustment_render ar JOIN resource x ON x.id = ar.resource_id
                                  WHERE ar.adjustment_id = v.current_adjustment_id AND x.role = need.role)
                  \(only)
                ORDER BY v.asset_id, need.role
                """
        ).map { (try $0.required(0), try $0.required(1), $0[2] ?? .renderedPhoto) }
    }

    /// The adjustment with exactly this recipe and time, when the asset has it already.
    static func find(asset: Int64, formatIdentifier: String, data: String, createdAt: String, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(
            Int64.self,
            """
            SELECT id FROM adjustment
            WHERE asset_id = \(asset) AND format_identifier = \(formatIdentifier) AND data = \(data) AND created_at = \(createdAt)
            ORDER BY id LIMIT 1
            """)
    }
}

extension AdjustmentRecord {
    /// These assets' adjustments, oldest first, each with whether it is its asset's
    /// current version (`asset_version`).
    static func fetchAllNotingCurrent(assets: IDList, _ db: any CatalogConnection) throws -> [(record: AdjustmentRecord, isCurrent: Bool)] {
        try assets.fetchRows(db) {
            """
            SELECT \(selection(of: "d")), coalesce(v.current_adjustment_id = d.id, FALSE) AS is_current
            FROM adjustment d LEFT JOIN asset_version v ON v.asset_id = d.asset_id
            WHERE d.asset_id IN \($0) ORDER BY d.id
            """
        }.map { row in (try AdjustmentRecord(row: row), try row.required(CodingKeys.allCases.count)) }
    }
}

/// A row of `adjustment_render`: a file an adjustment rendered.
struct AdjustmentRenderRecord: Codable, Sendable {
    var adjustmentId: Int64
    var resourceId: Int64

    enum CodingKeys: String, CodingKey {
        case adjustmentId = "adjustment_id", resourceId = "resource_id"
    }
}

extension AdjustmentRenderRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "adjustment_render"

    /// Links the render `resource` to `adjustment` (once).
    static func link(_ resource: Int64, to adjustment: Int64, _ db: any CatalogConnection) throws {
        try db.insert(AdjustmentRenderRecord(adjustmentId: adjustment, resourceId: resource), onConflict: "DO NOTHING")
    }

    /// Links the asset's renders that belong to no adjustment yet to `adjustment`;
    /// with `importedOnly`, only renders that came in as files (Apple's `IMG_E1234`).
    static func claimUnlinkedRenders(of asset: Int64, for adjustment: Int64, importedOnly: Bool, _ db: any CatalogConnection) throws {
        let imported: CatalogSQL = importedOnly ? "AND r.original_name IS NOT NULL" : ""
        try db.execute(
            """
                INSERT INTO adjustment_render (adjustment_id, resource_id)
                SELECT \(adjustment), r.id FROM resource r
                WHERE r.asset_id = \(asset) AND r.role IN \(ResourceRole.renders) \(imported)
                  AND NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
                """)
    }

    /// Links the asset's renders with these sha256s to `adjustment`, and to no other.
    static func link(renders sha256s: [String], of asset: Int64, to adjustment: Int64, _ db: any CatalogConnection) throws {
        guard !sha256s.isEmpty else { return }
        let ids = try db.fetchAll(
            Int64.self, "SELECT id FROM resource WHERE asset_id = \(asset) AND role IN \(ResourceRole.renders) AND sha256 IN \(sha256s)")
        try db.execute("DELETE FROM adjustment_render WHERE resource_id IN \(ids)")
        for id in ids { try db.insert(AdjustmentRenderRecord(adjustmentId: adjustment, resourceId: id)) }
    }

    /// The adjustment that rendered the resource (the oldest, when one recipe's render
    /// serves several adjustments: they share the recipe).
    static func adjustment(rendering resource: Int64, _ db: any CatalogConnection) throws -> AdjustmentRecord? {
        try db.fetchAll(
            AdjustmentRecord.self,
            "SELECT \(CatalogSQL(sql: AdjustmentRecord.selection(of: "a"))) FROM adjustment a JOIN adjustment_render ar ON ar.adjustment_id = a.id WHERE ar.resource_id = \(resource) ORDER BY a.id LIMIT 1"
        ).first
    }

    /// The newest file in `role` that the asset's current adjustment rendered.
    static func currentRender(of asset: Int64, role: ResourceRole, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            ResourceRecord.self,
            """
            SELECT \(CatalogSQL(sql: ResourceRecord.selection(of: "r"))) FROM resource r
            JOIN adjustment_render ar ON ar.resource_id = r.id
            JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id AND v.asset_id = r.asset_id
            WHERE r.asset_id = \(asset) AND r.role = \(role)
            ORDER BY r.id DESC LIMIT 1
            """
        ).first
    }
}

/// A row of `asset_version`: an asset's current version (no row, or a NULL adjustment,
/// means the original).
struct AssetVersionRecord: Codable, Sendable {
    var assetId: Int64
    var currentAdjustmentId: Int64?
    var changedAt: String

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id", currentAdjustmentId = "current_adjustment_id", changedAt = "changed_at"
    }
}

extension AssetVersionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "asset_version"

    /// Read column by column, as the other records are, not through `Decodable`.
    init(row: Row) throws {
        assetId = row[CodingKeys.assetId.rawValue]
        currentAdjustmentId = row[CodingKeys.currentAdjustmentId.rawValue]
        changedAt = row[CodingKeys.changedAt.rawValue]
    }

    /// Makes `adjustment` (nil: the original) the asset's current version.
    static func setCurrent(asset: Int64, adjustment: Int64?, _ db: any CatalogConnection) throws {
        try db.insert(
            AssetVersionRecord(assetId: asset, currentAdjustmentId: adjustment, changedAt: utcNow()),
            onConflict: "(asset_id) DO UPDATE SET current_adjustment_id = excluded.current_adjustment_id, changed_at = excluded.changed_at")
    }
}
