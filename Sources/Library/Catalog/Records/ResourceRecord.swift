import GRDB

/// What a file is to its asset. The raw values are the public JSON and SQL names.
public enum ResourceRole: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case photo, pairedVideo, video, thumbnail, adjustmentSidecar, renderedPhoto, renderedVideo

    /// The asset's own still and movie: what it is named after, what its metadata comes
    /// from, what pairing joins. An imported one exists once in the whole library.
    public static let primary: [ResourceRole] = [.photo, .pairedVideo, .video]
    /// Files an adjustment rendered.
    public static let renders: [ResourceRole] = [.renderedPhoto, .renderedVideo]

    public var isPrimaryOriginal: Bool { Self.primary.contains(self) }

    /// ``primary`` as an SQL list: `('photo', 'pairedVideo', 'video')`.
    static let primarySQL = "(" + primary.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
}

/// A row of `resource`: one file of an asset.
struct ResourceRecord: Codable, Sendable {
    var id: Int64?
    var assetId: Int64
    var role: ResourceRole
    /// Relative to the library folder.
    var path: String
    var sha256: String
    var bytes: Int64
    var mime: String
    /// What a thumbnail shows, what a render or a Motion Photo's movie was made from.
    var derivedFrom: Int64?
    var originalName: String?
    var sourceDir: String?
    var addedAt: String
    /// Its CRC-32, when it was computed as the file was written (nil for files of
    /// libraries before migration 0023).
    var crc32: UInt32?

    /// The table's columns this record reads, in the order it reads them.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, assetId = "asset_id", role, path, sha256, bytes, mime, derivedFrom = "derived_from"
        case originalName = "original_name", sourceDir = "source_dir", addedAt = "added_at", crc32
    }
}

extension ResourceRecord: PositionalRecord, MutablePersistableRecord, CatalogIdentified {
    static let databaseTableName = "resource"

    init(row: CatalogRow) throws {
        assert(Self.isSelected(in: row), "a resource row not selected with `databaseSelection`")
        id = row[0]
        assetId = try row.required(1)
        role = try row.required(2)
        path = try row.required(3)
        sha256 = try row.required(4)
        bytes = try row.required(5)
        mime = try row.required(6)
        derivedFrom = row[7]
        originalName = row[8]
        sourceDir = row[9]
        addedAt = try row.required(10)
        crc32 = row[11]
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func setRole(_ role: ResourceRole, of id: Int64, _ db: any CatalogConnection) throws {
        try db.execute("UPDATE resource SET role = \(role) WHERE id = \(id)")
    }

    /// The asset holding an imported original with these bytes (a still or movie that
    /// came in through an import, not cut out of another file).
    static func assetHolding(original sha256: String, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(
            Int64.self,
            "SELECT asset_id FROM resource WHERE sha256 = \(sha256) AND role IN \(ResourceRole.primary) AND derived_from IS NULL LIMIT 1")
    }

    /// Which of `sizes` (at most 512) an imported original has (migration 0024's index).
    static func originalSizes(among sizes: [Int64], _ db: any CatalogConnection) throws -> Set<Int64> {
        try IDList(sizes).fetchSet(Int64.self, db) {
            "SELECT DISTINCT bytes FROM resource WHERE bytes IN \($0) AND role IN \(ResourceRole.primarySQL) AND derived_from IS NULL"
        }
    }

    /// The asset's file in `role` with these bytes.
    static func find(asset: Int64, role: ResourceRole, sha256: String, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r
            WHERE r.asset_id = \(asset) AND r.role = \(role) AND r.sha256 = \(sha256) ORDER BY r.id LIMIT 1
            """
        ).first
    }

    /// The id of the asset's first file in `role`.
    static func firstID(asset: Int64, role: ResourceRole, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE asset_id = \(asset) AND role = \(role) ORDER BY id LIMIT 1")
    }

    /// The id of the asset's file at `path` (relative to the library).
    static func id(asset: Int64, path: String, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE asset_id = \(asset) AND path = \(path) ORDER BY id LIMIT 1")
    }

    /// A still or movie (an original or a render) with these bytes.
    static func fetchShowable(sha256: String, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r
            WHERE r.sha256 = \(sha256) AND r.role IN \(ResourceRole.primary + ResourceRole.renders) ORDER BY r.id LIMIT 1
            """
        ).first
    }

    /// The movie cut out of the still `still` (a Motion Photo's).
    static func embeddedMovieID(of still: Int64, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE derived_from = \(still) AND role = 'pairedVideo' ORDER BY id LIMIT 1")
    }

    /// The asset's first still, else its first movie, of its own (not a Live Photo's movie).
    static func fetchOwnStillOrMovie(asset: Int64, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r WHERE r.asset_id = \(asset) AND r.role IN ('photo', 'video')
            ORDER BY r.role = 'photo' DESC, r.id LIMIT 1
            """
        ).first
    }

    /// The asset's own still, else its movie.
    static func fetchPrimary(asset: Int64, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r WHERE r.asset_id = \(asset) AND r.role IN \(ResourceRole.primary)
            ORDER BY r.role = 'photo' DESC, r.id LIMIT 1
            """
        ).first
    }

    /// The stills and movies imported from `folder`, stills first.
    static func fetchPrimaries(importedFrom folder: String, _ db: any CatalogConnection) throws -> [ResourceRecord] {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r WHERE r.source_dir = \(folder) AND r.role IN \(ResourceRole.primary)
            ORDER BY r.role = 'photo' DESC, r.id
            """)
    }
}

extension ResourceRecord {
    /// The names and sizes of the files imported from `folder`, as "NAME/BYTES" (a name holds no slash).
    static func namesAndSizes(importedFrom folder: String, _ db: any CatalogConnection) throws -> Set<String> {
        let rows = try db.fetchAll(
            String.self, "SELECT r.original_name || '/' || r.bytes FROM resource r WHERE r.source_dir = \(folder) AND r.original_name IS NOT NULL")
        return Set(rows)
    }

    /// The asset with a file at `path` (relative to the library), if any.
    static func asset(holding path: String, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(Int64.self, "SELECT asset_id FROM resource WHERE path = \(path) LIMIT 1")
    }

    /// The first asset, by its file's id, with a file of these bytes.
    static func asset(withBytes sha256: String, _ db: any CatalogConnection) throws -> Int64? {
        try db.fetchOne(Int64.self, "SELECT asset_id FROM resource WHERE sha256 = \(sha256) ORDER BY id LIMIT 1")
    }

    /// Every file of these assets.
    static func fetchAll(assets: IDList, _ db: any CatalogConnection) throws -> [ResourceRecord] {
        try assets.fetchAll(Self.self, db) { "SELECT \(selection(of: "r")) FROM resource r WHERE r.asset_id IN \($0)" }
    }

    /// A file of an asset as a description reads it: whether it is current (in
    /// `current_resource`: no edit's render, or a render of the current edit) and the
    /// still-image time a Live Photo's movie carries.
    struct Described {
        var record: ResourceRecord
        var isCurrent: Bool
        var stillImageTime: Double?
    }

    /// Every file of these assets, described, in one statement. Whether a file is current
    /// is asked per file, of the two indexes `current_resource` reads.
    static func fetchDescribed(assets: IDList, _ db: any CatalogConnection) throws -> [Described] {
        let columns = CodingKeys.allCases.count
        return try assets.fetchRows(db) {
            """
            SELECT \(selection(of: "r")),
              NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
                OR EXISTS (SELECT 1 FROM adjustment_render ar
                           JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id AND v.asset_id = r.asset_id
                           WHERE ar.resource_id = r.id),
              m.still_image_time
            FROM resource r LEFT JOIN metadata m ON r.role = 'pairedVideo' AND m.resource_id = r.id
            WHERE r.asset_id IN \($0)
            """
        }.map { row in Described(record: try ResourceRecord(row: row), isCurrent: try row.required(columns), stillImageTime: row[columns + 1]) }
    }

    /// The still and movie of these assets.
    static func fetchPrimaries(assets: IDList, _ db: any CatalogConnection) throws -> [ResourceRecord] {
        try assets.fetchAll(Self.self, db) { "SELECT \(selection(of: "r")) FROM resource r WHERE r.asset_id IN \($0) AND r.role IN \(ResourceRole.primarySQL)" }
    }

    /// The rows of `current_resource` of the assets `IN list` (a parenthesised list of
    /// placeholders), as a subquery: the files of no edit, and the renders of the current
    /// one. Written as two joins, not through the view, whose `OR` of two `EXISTS`
    /// PostgreSQL's planner answers by reading every render and version (28 ms a page at
    /// 100,000 assets); SQLite runs both the same way.
    static func currentResources(assetsIn list: String) -> String {
        """
        (SELECT c.* FROM resource c WHERE c.asset_id IN \(list)
           AND NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = c.id)
         UNION ALL
         SELECT c.* FROM resource c
         JOIN adjustment_render ar ON ar.resource_id = c.id
         JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id AND v.asset_id = c.asset_id
         WHERE c.asset_id IN \(list))
        """
    }

}

extension ResourceRecord {
    /// The stills and movies these assets' current versions show (originals and renders).
    static func fetchCurrentShown(assets: IDList, _ db: any CatalogConnection) throws -> [ResourceRecord] {
        try assets.fetchAll(Self.self, db) {
            "SELECT \(selection(of: "r")) FROM \(currentResources(assetsIn: $0)) r WHERE r.role IN ('photo', 'pairedVideo', 'video', 'renderedPhoto', 'renderedVideo') ORDER BY r.id"
        }
    }

    /// One still or movie of an asset (an original or any render of it), if it is the asset's.
    static func fetchShowable(asset: Int64, resource: Int64, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            """
            SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r
            WHERE r.id = \(resource) AND r.asset_id = \(asset) AND r.role IN \(ResourceRole.primary + ResourceRole.renders)
            """
        ).first
    }

    /// The thumbnail import made of a file.
    static func fetchThumbnail(of resource: Int64, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(
            Self.self,
            "SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r WHERE r.role = 'thumbnail' AND r.derived_from = \(resource) ORDER BY r.id LIMIT 1"
        ).first
    }

    /// One file.
    static func find(_ id: Int64, _ db: any CatalogConnection) throws -> ResourceRecord? {
        try db.fetchAll(Self.self, "SELECT \(CatalogSQL(sql: selection(of: "r"))) FROM resource r WHERE r.id = \(id)").first
    }
}
