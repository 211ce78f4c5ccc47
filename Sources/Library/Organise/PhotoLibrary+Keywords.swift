import GRDB

extension PhotoLibrary {
    /// Every keyword with how many assets carry it, by name.
    public func keywords() throws -> [(name: String, assets: Int)] {
        try catalog.read { db in try KeywordRecord.overview(db) }
    }

    /// Gives the assets the keyword (made the first time it is used). Returns those that
    /// did not have it.
    public func addKeyword(_ name: String, to ids: [Int64]) throws -> [Int64] {
        let name = try Self.checkedName(name, keyword: true)
        return try catalog.write { db in
            var keyword = try KeywordRecord.named(name, db) ?? KeywordRecord(id: nil, name: name)
            if keyword.id == nil { try keyword.insert(db) }
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO asset_keyword (keyword_id, asset_id) VALUES (?, ?)")
            return try ids.filter { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                try insert.execute(arguments: [keyword.id, id])
                return db.changesCount > 0
            }
        }
    }

    /// Takes the keyword off the assets; a keyword no asset carries any more is forgotten.
    /// Returns the assets that had it.
    public func removeKeyword(_ name: String, from ids: [Int64]) throws -> [Int64] {
        try catalog.write { db in
            guard let keyword = try KeywordRecord.named(name, db), let id = keyword.id else { return [] }
            let delete = try db.cachedStatement(sql: "DELETE FROM asset_keyword WHERE keyword_id = ? AND asset_id = ?")
            let removed = try ids.filter { asset in
                try delete.execute(arguments: [id, asset])
                return db.changesCount > 0
            }
            try db.execute(sql: "DELETE FROM keyword WHERE id = ? AND NOT EXISTS (SELECT 1 FROM asset_keyword WHERE keyword_id = ?)", arguments: [id, id])
            return removed
        }
    }
}
