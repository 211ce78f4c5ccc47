import GRDB

/// What the user said about an asset (0014): whether it is a favourite, the albums it is
/// in and its keywords, each list by name.
struct AssetMarks {
    var favorite = false
    var albums: [String] = []
    var keywords: [String] = []

    /// The marks of these assets, in one statement; an asset without any is left out.
    static func fetch(assets: IDList, _ db: any CatalogConnection) throws -> [Int64: AssetMarks] {
        var marks: [Int64: AssetMarks] = [:]
        for row in try assets.fetchRows(db, sql: { list in
            """
            SELECT asset_id, 'favorite', NULL FROM favorite WHERE asset_id IN \(list)
            UNION ALL SELECT x.asset_id, 'album', a.name FROM album_asset x JOIN album a ON a.id = x.album_id WHERE x.asset_id IN \(list)
            UNION ALL SELECT x.asset_id, 'keyword', k.name FROM asset_keyword x JOIN keyword k ON k.id = x.keyword_id WHERE x.asset_id IN \(list)
            ORDER BY 3
            """
        }) {
            let asset: Int64 = try row.required(0)
            let kind: String = try row.required(1)
            switch kind {
            case "favorite": marks[asset, default: AssetMarks()].favorite = true
            case "album": marks[asset, default: AssetMarks()].albums.append(try row.required(2))
            default: marks[asset, default: AssetMarks()].keywords.append(try row.required(2))
            }
        }
        return marks
    }
}
