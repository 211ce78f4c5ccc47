
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
            if keyword.id == nil { try db.insert(&keyword) }
            return try ids.filter { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                return try keyword.tag(id, db)
            }
        }
    }

    /// Takes the keyword off the assets; a keyword no asset carries any more is forgotten.
    /// Returns the assets that had it.
    public func removeKeyword(_ name: String, from ids: [Int64]) throws -> [Int64] {
        try catalog.write { db in
            guard let keyword = try KeywordRecord.named(name, db) else { return [] }
            let removed = try ids.filter { asset in try keyword.untag(asset, db) }
            try keyword.deleteIfUnused(db)
            return removed
        }
    }
}
