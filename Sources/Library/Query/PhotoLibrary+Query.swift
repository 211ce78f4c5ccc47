import Foundation

extension PhotoLibrary {
    /// Full descriptions of the given assets, in the given order.
    public func describe(_ ids: [Int64]) throws -> [AssetDescription] {
        guard !ids.isEmpty else { return [] }
        return try catalog.read { db in try AssetDescription.fetchAll(ids, layout: layout, db) }
    }

    /// The assets `query` selects, in its order, handed to `body` in chunks of up to
    /// `chunk` as they are read (each with its ``AssetDescription/cursor``), so that
    /// memory stays flat however many match; `detail` says how much of each to read. Everything is read in one transaction: one
    /// state of the catalog, even while an import writes. Returns where the listing goes
    /// on when its limit cut it short: the last asset's cursor; nil when nothing follows.
    @discardableResult
    public func assets(
        matching query: AssetQuery, detail: AssetDetail = .full, chunk: Int = 500, _ body: ([AssetDescription]) throws -> Void
    ) throws -> AssetCursor?
    {
        // One more than asked for tells whether more follow.
        var listing = query
        listing.limit = query.limit.map { $0 + 1 }
        return try catalog.read { db in
            var page: [AssetListing.Entry] = []
            var delivered = 0
            var last: AssetCursor?
            var more = false
            func flush() throws {
                var described = try AssetDescription.fetchAll(page.map(\.id), detail: detail, layout: layout, trash: query.trashed, db)
                let cursors = Dictionary(page.map { ($0.id, $0.cursor) }, uniquingKeysWith: { a, _ in a })
                for i in described.indices { described[i].cursor = cursors[described[i].id]?.description }
                last = page.last?.cursor
                page.removeAll(keepingCapacity: true)
                try body(described)
            }
            try AssetListing(query: listing).forEach(db) { entry in
                if let limit = query.limit, delivered == limit {
                    more = true
                    return false
                }
                delivered += 1
                page.append(entry)
                if page.count == chunk { try flush() }
                return true
            }
            if !page.isEmpty { try flush() }
            return more ? last : nil
        }
    }

    /// The ids of the assets `query` selects, in its order.
    public func assetIDs(matching query: AssetQuery) throws -> [Int64] {
        try catalog.read { db in try AssetListing(query: query).ids(db) }
    }

    /// The asset a user names: its id ("12"), a path of one of its files in the library,
    /// or any file elsewhere whose bytes the library holds (found by sha256).
    public func findAsset(_ reference: String) throws -> Int64 {
        guard !reference.isEmpty else { throw LibraryError.assetNotFound("named by an empty argument (give an asset id or a file's path)") }
        if let id = Int64(reference) {
            if try catalog.read({ db in try AssetRecord.exists(id, db) }) { return id }
            throw LibraryError.assetNotFound("with id \(id)")
        }
        let url = LibraryLocation.absolute(reference)
        let path = relative(url)
        if let id = try catalog.read({ db in try ResourceRecord.asset(holding: path, db) }) {
            return id
        }
        // A name that is not UTF-8 reached Swift with U+FFFD in place of its bytes: the
        // command line still holds them.
        let raw = FileManager.default.fileExists(atPath: url.path) ? RawPath(url.path) : RawPath.commandLine(reference)
        guard let raw, raw.withCString({ access($0, F_OK) }) == 0 else {
            throw LibraryError.assetNotFound("\(reference) (neither an id nor an existing file)")
        }
        let sha = try FileReading.sha256(of: raw, named: raw.presented)
        if let id = try catalog.read({ db in try ResourceRecord.asset(withBytes: sha, db) }) {
            return id
        }
        throw LibraryError.assetNotFound("holding the bytes of \(url.path)")
    }
}
