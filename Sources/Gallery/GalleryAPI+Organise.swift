import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library
import NIOCore

/// The API of what a person says about assets: favourites, the trash, albums and keywords.
/// Each change takes a list of assets (the viewer sends one; a selection, many) and is one
/// transaction of the library's, as the `camlib` command of the same name is.
///
/// ```
/// POST /api/assets/favorite  {"assets": [ID…], "favorite": true}
/// POST /api/assets/trash     {"assets": [ID…]}
/// POST /api/assets/restore   {"assets": [ID…]}
/// POST /api/assets/keywords  {"assets": [ID…], "add": ["beach"], "remove": ["sun"]}
/// GET  /api/keywords                              every keyword with its count
/// GET  /api/albums                                every album: name, count, cover's thumbnail
/// POST /api/albums           {"name": "Lisbon"}   a new album
/// POST /api/albums/ID        {"name": "…"} renames; {"cover": ASSET} chooses its cover
/// GET  /api/albums/ID/assets?limit=N&after=PLACE  a page of the album in its own order
/// POST /api/albums/ID/assets {"add": [ID…], "remove": [ID…]}
/// POST /api/albums/ID/delete {"evenIfNotEmpty": true}   its assets stay in the library
/// GET  /api/trash                                 how many assets the trash holds
/// POST /api/trash/empty                           deletes them for good
/// ```
extension GalleryAPI {
    func addOrganiseRoutes(to router: Router<some RequestContext>) {
        router.post("/api/assets/favorite") { request, _ in
            let body = try await Self.decode(FavoriteBody.self, request, example: #"{"assets": [1, 2], "favorite": true}"#)
            return try jsonResponse(try await changing { library in try library.setFavorite(body.assets, body.favorite) })
        }
        router.post("/api/assets/trash") { request, _ in
            let body = try await Self.decode(AssetsBody.self, request, example: #"{"assets": [1, 2]}"#)
            return try jsonResponse(try await changing { library in try library.trash(body.assets) })
        }
        router.post("/api/assets/restore") { request, _ in
            let body = try await Self.decode(AssetsBody.self, request, example: #"{"assets": [1, 2]}"#)
            return try jsonResponse(try await changing { library in try library.restore(body.assets) })
        }
        router.post("/api/assets/keywords") { request, _ in
            let body = try await Self.decode(KeywordsBody.self, request, example: #"{"assets": [1], "add": ["beach"], "remove": []}"#)
            return try jsonResponse(
                try await changing { library in
                    var changes = ListChanges()
                    for name in body.add ?? [] { changes.added[name] = try library.addKeyword(name, to: body.assets) }
                    for name in body.remove ?? [] { changes.removed[name] = try library.removeKeyword(name, from: body.assets) }
                    return changes
                })
        }
        router.get("/api/keywords") { _, _ in
            let library = self.library
            let keywords = try await Blocking.run { try library.keywords().map { KeywordInfo(name: $0.name, assets: $0.assets) } }
            return try jsonResponse(keywords)
        }
        router.get("/api/albums") { _, _ in
            let library = self.library
            return try jsonResponse(
                try await Blocking.run {
                    let albums = try library.albums()
                    let media = try library.media(of: albums.compactMap(\.cover))
                    return albums.map { AlbumInfo($0, cover: $0.cover.flatMap { media[$0] }) }
                })
        }
        router.post("/api/albums") { request, _ in
            let body = try await Self.decode(AlbumBody.self, request, example: #"{"name": "Lisbon"}"#)
            guard let name = body.name else { throw HTTPError(.badRequest, message: #"send {"name": "Lisbon"}"#) }
            return try jsonResponse(try await changing { library in try library.createAlbum(name) }, status: .created)
        }
        router.post("/api/albums/:album") { request, context in
            let id = try context.parameters.require("album", as: Int64.self)
            let body = try await Self.decode(AlbumBody.self, request, example: #"{"name": "Lisbon 2025"} or {"cover": 12}"#)
            guard body.name != nil || body.cover != nil else { throw HTTPError(.badRequest, message: #"send {"name": "…"} or {"cover": ASSET}"#) }
            return try jsonResponse(
                try await changing { library in
                    var name = try Self.albumName(id, library)
                    if let newName = body.name {
                        try library.renameAlbum(name, to: newName)
                        name = try Self.albumName(id, library)
                    }
                    if let cover = body.cover { try library.setAlbumCover(name, cover) }
                    return try library.album(named: name).album
                })
        }
        router.get("/api/albums/:album/assets") { request, context in
            let id = try context.parameters.require("album", as: Int64.self)
            let parameters = request.uri.formParameters
            let limit = parameters["limit"].map { Int(String($0)) } ?? 100
            guard let limit, limit > 0, limit <= TimelineQuery.largestPage else {
                throw HTTPError(.badRequest, message: "limit: a number from 1 to \(TimelineQuery.largestPage)")
            }
            let after = try parameters["after"].flatMap { text -> Int64? in
                guard !text.isEmpty else { return nil }
                guard let place = Int64(String(text)) else { throw HTTPError(.badRequest, message: "after=\(text): a place in the album, as `next` gave it") }
                return place
            }
            let library = self.library
            return jsonResponse(
                bytes: try await Blocking.run {
                    _ = try Self.albumName(id, library)
                    let (ids, next) = try library.albumPage(id, after: after, limit: limit)
                    let described = Dictionary(uniqueKeysWithValues: try library.describe(ids).map { ($0.id, $0) })
                    let media = try library.media(of: ids)
                    let assets = ids.compactMap { id in described[id].map { GalleryAsset($0, media[id]) } }
                    return GalleryAsset.page(assets, next: next.map(String.init))
                })
        }
        router.post("/api/albums/:album/assets") { request, context in
            let id = try context.parameters.require("album", as: Int64.self)
            let body = try await Self.decode(AlbumAssetsBody.self, request, example: #"{"add": [1, 2], "remove": [3]}"#)
            return try jsonResponse(
                try await changing { library in
                    let name = try Self.albumName(id, library)
                    var changes = ListChanges()
                    if let add = body.add { changes.added[name] = try library.addToAlbum(name, add) }
                    if let remove = body.remove { changes.removed[name] = try library.removeFromAlbum(name, remove) }
                    return changes
                })
        }
        router.post("/api/albums/:album/delete") { request, context in
            let id = try context.parameters.require("album", as: Int64.self)
            let body = try await Self.decode(DeleteAlbumBody.self, request, example: #"{"evenIfNotEmpty": true}"#, emptyIs: DeleteAlbumBody())
            return try jsonResponse(
                try await changing { library in
                    let name = try Self.albumName(id, library)
                    try library.deleteAlbum(name, evenIfNotEmpty: body.evenIfNotEmpty ?? false)
                    return ["deleted": name]
                })
        }
        router.get("/api/trash") { _, _ in
            let library = self.library
            return try jsonResponse(["assets": try await Blocking.run { try library.trashContents().count }])
        }
        router.post("/api/trash/empty") { _, _ in
            try jsonResponse(try await changing { library in try library.emptyTrash() })
        }
    }

    /// Runs a change of the library off the request threads; the library's refusals
    /// become answers that say what was wrong (404, 409, 400), with its own words.
    func changing<T: Sendable>(_ work: @escaping @Sendable (PhotoLibrary) throws -> T) async throws -> T {
        try refuseIfReadOnly()
        let library = self.library
        do {
            return try await Blocking.run { try work(library) }
        } catch let error as AlbumError {
            switch error {
            case .noAlbum: throw HTTPError(.notFound, message: error.description)
            case .exists, .notEmpty: throw HTTPError(.conflict, message: error.description)
            case .badName, .badKeyword, .notInAlbum: throw HTTPError(.badRequest, message: error.description)
            }
        } catch let error as LibraryError {
            switch error {
            case .assetNotFound: throw HTTPError(.notFound, message: error.description)
            default: throw HTTPError(.internalServerError, message: error.description)
            }
        }
    }

    /// The name of the album with this id (the library's calls name albums, as the
    /// commands do; the page keeps ids, which a rename does not change).
    static func albumName(_ id: Int64, _ library: PhotoLibrary) throws -> String {
        guard let name = try library.albumName(id: id) else { throw HTTPError(.notFound, message: "no album with id \(id)") }
        return name
    }

    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, example: String, emptyIs empty: T? = nil) async throws -> T {
        var request = request
        let body = try await request.collectBody(upTo: 1024 * 1024)
        if body.readableBytes == 0, let empty { return empty }
        guard let value = try? JSONDecoder().decode(T.self, from: Data(buffer: body)) else {
            throw HTTPError(.badRequest, message: "send \(example)")
        }
        return value
    }

    // MARK: Bodies

    struct AssetsBody: Decodable {
        var assets: [Int64]
    }

    struct FavoriteBody: Decodable {
        var assets: [Int64]
        var favorite: Bool
    }

    struct KeywordsBody: Decodable {
        var assets: [Int64]
        var add: [String]?
        var remove: [String]?
    }

    struct AlbumBody: Decodable {
        var name: String?
        var cover: Int64?
    }

    struct AlbumAssetsBody: Decodable {
        var add: [Int64]?
        var remove: [Int64]?
    }

    struct DeleteAlbumBody: Decodable {
        var evenIfNotEmpty: Bool?
    }

    /// Per keyword or album name: the assets it was added to, or taken from.
    struct ListChanges: Encodable, Sendable {
        var added: [String: [Int64]] = [:]
        var removed: [String: [Int64]] = [:]
    }

    struct KeywordInfo: Encodable, Sendable {
        var name: String
        var assets: Int
    }

    /// An album as the page lists it: the library's ``Album`` and its cover's thumbnail.
    struct AlbumInfo: Encodable, Sendable {
        var id: Int64
        var name: String
        var assets: Int
        var cover: Int64?
        var createdAt: String
        var thumbnail: String?

        init(_ album: Album, cover media: AssetMedia?) {
            (id, name, assets, cover, createdAt) = (album.id, album.name, album.assets, album.cover, album.createdAt)
            if let cover = album.cover, let shown = media?.still ?? media?.movie {
                thumbnail = "/media/\(cover)/\(shown)/thumbnail"
            }
        }
    }
}
