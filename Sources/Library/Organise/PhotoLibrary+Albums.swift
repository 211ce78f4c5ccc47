import Foundation

/// An album, as `camlib album list` shows it.
public struct Album: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// How many assets it holds.
    public var assets: Int
    /// The asset shown for it: the one chosen, else its first; nil when it is empty.
    public var cover: Int64?
    public var createdAt: String
}

/// Why an album could not be changed.
public enum AlbumError: Error, CustomStringConvertible, Equatable {
    /// A name in quotes, its first 60 characters of a long one (with how long it is).
    static func quoted(_ name: String) -> String {
        name.count <= 80 ? "\"\(name)\"" : "\"\(name.prefix(60))…\" (\(name.count) characters)"
    }

    case noAlbum(String)
    case exists(String)
    case badName(String)
    /// A keyword's name that is empty, too long or holds control characters.
    case badKeyword(String)
    case notEmpty(String, assets: Int)
    case notInAlbum(asset: Int64, album: String)

    public var description: String {
        switch self {
        case .noAlbum(let name): "no album named \"\(name)\" (`camlib album list` lists them; `camlib album create` makes one)"
        case .exists(let name): "an album named \"\(name)\" exists already"
        case .badName(let name): "\(Self.quoted(name)) cannot name an album: give some text of at most \(PhotoLibrary.longestName) characters, without line breaks"
        case .badKeyword(let name): "\(Self.quoted(name)) cannot be a keyword: give some text of at most \(PhotoLibrary.longestName) characters, without line breaks"
        case .notEmpty(let name, let n): "the album \"\(name)\" holds \(n) asset\(n == 1 ? "" : "s"); `camlib album delete --even-if-not-empty` deletes it all the same (the assets themselves stay in the library)"
        case .notInAlbum(let asset, let name): "asset \(asset) is not in the album \"\(name)\""
        }
    }
}

extension PhotoLibrary {
    /// Every album, by name.
    public func albums() throws -> [Album] {
        try catalog.read { db in
            try AlbumRecord.overview(db).map { Album(id: try $0.required(0), name: try $0.required(1), assets: try $0.required(2), cover: $0[3], createdAt: try $0.required(4)) }
        }
    }

    /// The name of the album with this id; nil when there is none.
    public func albumName(id: Int64) throws -> String? {
        try catalog.read { db in try AlbumRecord.find(id, db)?.name }
    }

    /// The album named `name`, with its assets in its order.
    public func album(named name: String) throws -> (album: Album, assets: [Int64]) {
        let album = try albums().first { $0.name == name }
        guard let album else { throw AlbumError.noAlbum(name) }
        return (album, try catalog.read { db in try AlbumAssetRecord.assets(of: album.id, db) })
    }

    /// A page of the album with id `album` in its own order, without the assets in the
    /// trash: up to `limit` assets after the place `after` (nil: from its start), and the
    /// place the next page starts after (nil: this page ends the album).
    public func albumPage(_ album: Int64, after: Int64?, limit: Int) throws -> (assets: [Int64], next: Int64?) {
        let rows = try catalog.read { db in try AlbumAssetRecord.page(of: album, after: after ?? .min, limit: limit + 1, db) }
        let page = rows.prefix(limit)
        return (page.map(\.asset), rows.count > limit ? page.last?.position : nil)
    }

    /// A new, empty album.
    @discardableResult
    public func createAlbum(_ name: String) throws -> Album {
        let name = try Self.checkedName(name)
        var record = AlbumRecord(id: nil, name: name, coverAssetId: nil, createdAt: utcNow())
        try catalog.write { db in
            guard try AlbumRecord.named(name, db) == nil else { throw AlbumError.exists(name) }
            try db.insert(&record)
        }
        return Album(id: record.id!, name: name, assets: 0, cover: nil, createdAt: record.createdAt)
    }

    /// Appends the assets to the album, in the order given; those in it already keep
    /// their place. Returns the assets added.
    public func addToAlbum(_ name: String, _ ids: [Int64]) throws -> [Int64] {
        try catalog.write { db in
            let album = try Self.album(name, db)
            var position = try AlbumAssetRecord.nextPosition(in: album, db)
            let now = utcNow()
            var added: [Int64] = []
            for id in ids {
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                guard try !AlbumAssetRecord.contains(album: album, asset: id, db) else { continue }
                try db.insert(AlbumAssetRecord(albumId: album, assetId: id, position: position, addedAt: now))
                position += 1
                added.append(id)
            }
            return added
        }
    }

    /// Takes the assets out of the album (not out of the library). Returns those removed.
    public func removeFromAlbum(_ name: String, _ ids: [Int64]) throws -> [Int64] {
        try catalog.write { db in
            let album = try Self.album(name, db)
            return try ids.filter { id in try AlbumAssetRecord.remove(album: album, asset: id, db) }
        }
    }

    /// Gives the album another name.
    public func renameAlbum(_ name: String, to newName: String) throws {
        let newName = try Self.checkedName(newName)
        try catalog.write { db in
            guard var record = try AlbumRecord.named(name, db) else { throw AlbumError.noAlbum(name) }
            let taken = try AlbumRecord.named(newName, db)
            guard taken == nil || taken?.id == record.id else { throw AlbumError.exists(newName) }
            record.name = newName
            try record.update(db)
        }
    }

    /// Shows `asset`, which must be in the album, for it.
    public func setAlbumCover(_ name: String, _ asset: Int64) throws {
        try catalog.write { db in
            guard var record = try AlbumRecord.named(name, db) else { throw AlbumError.noAlbum(name) }
            guard let album = record.id, try AlbumAssetRecord.contains(album: album, asset: asset, db) else {
                throw AlbumError.notInAlbum(asset: asset, album: name)
            }
            record.coverAssetId = asset
            try record.update(db)
        }
    }

    /// Deletes the album. One that holds assets is deleted only with `evenIfNotEmpty`,
    /// its places going with it in the same transaction. Deleting an album never takes an
    /// asset anywhere: its assets stay in the library, and in their other albums.
    public func deleteAlbum(_ name: String, evenIfNotEmpty: Bool = false) throws {
        try catalog.write { db in
            guard let record = try AlbumRecord.named(name, db) else { throw AlbumError.noAlbum(name) }
            let count = try AlbumAssetRecord.assets(of: record.id!, db).count
            guard count == 0 || evenIfNotEmpty else { throw AlbumError.notEmpty(name, assets: count) }
            try AlbumRecord.delete(record.id!, db)
        }
    }

    private static func album(_ name: String, _ db: any CatalogConnection) throws -> Int64 {
        guard let id = try AlbumRecord.named(name, db)?.id else { throw AlbumError.noAlbum(name) }
        return id
    }

    /// An album's or keyword's name: trimmed, not empty, on one line.
    /// The longest album or keyword name, in characters.
    public static let longestName = 200

    /// `name` trimmed, when it can name an album (or, with `keyword`, be a keyword).
    static func checkedName(_ name: String, keyword: Bool = false) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= longestName,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw keyword ? AlbumError.badKeyword(name) : AlbumError.badName(name)
        }
        return trimmed
    }
}
