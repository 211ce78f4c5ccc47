import Foundation
import Testing
import TestSupport

@testable import Library

/// Favourites, albums and keywords: kept in the catalog, shown with each asset, gone with
/// an asset when the trash is emptied, and never taking an asset anywhere; on either backend.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct OrganiseTests {
    @Test(arguments: CatalogBackend.allCases) func favouritesAlbumsAndKeywords(on backend: CatalogBackend) throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL())
        let files = ["orientation/Landscape_1.jpg", "orientation/Landscape_2.jpg", "orientation/Landscape_3.jpg", "apple-misc/IMG_2682.heic"]
        _ = try Importer(library: library).run(paths: files.map { Media.path($0) })
        let ids = try files.map { try library.findAsset(Media.path($0)) }

        #expect(try library.setFavorite([ids[0], ids[1]], true).map(\.changed) == [true, true])
        #expect(try library.setFavorite([ids[1], ids[2]], true).map(\.changed) == [false, true])
        #expect(try library.setFavorite([ids[2]], false).map(\.changed) == [true])

        try library.createAlbum("  Trip  ")
        #expect(throws: AlbumError.exists("Trip")) { try library.createAlbum("Trip") }
        #expect(throws: AlbumError.badName("\n")) { try library.createAlbum("\n") }
        #expect(try library.addToAlbum("Trip", [ids[3], ids[0], ids[3], ids[1]]) == [ids[3], ids[0], ids[1]])
        #expect(try library.addToAlbum("Trip", [ids[2], ids[0]]) == [ids[2]])
        #expect(try library.album(named: "Trip").assets == [ids[3], ids[0], ids[1], ids[2]], "in the order added")
        #expect(try library.album(named: "Trip").album.cover == ids[3], "the first, until one is chosen")
        try library.setAlbumCover("Trip", ids[1])
        #expect(throws: AlbumError.notInAlbum(asset: 999, album: "Trip")) { try library.setAlbumCover("Trip", 999) }
        #expect(try library.removeFromAlbum("Trip", [ids[0], ids[0]]) == [ids[0]])
        try library.renameAlbum("Trip", to: "Lisbon")
        #expect(throws: AlbumError.noAlbum("Trip")) { try library.album(named: "Trip") }
        try library.createAlbum("Other")
        #expect(throws: AlbumError.exists("Other")) { try library.renameAlbum("Lisbon", to: "Other") }
        #expect(throws: AlbumError.notEmpty("Lisbon", assets: 3)) { try library.deleteAlbum("Lisbon") }
        try library.deleteAlbum("Other")
        #expect(try library.albums().map(\.name) == ["Lisbon"])

        #expect(try library.addKeyword("beach", to: [ids[0], ids[1]]) == [ids[0], ids[1]])
        #expect(try library.addKeyword("beach", to: [ids[1], ids[2]]) == [ids[2]])
        #expect(try library.addKeyword("sun", to: [ids[1]]) == [ids[1]])
        #expect(try library.keywords().map(\.name) == ["beach", "sun"] && library.keywords().map(\.assets) == [3, 1])
        #expect(try library.removeKeyword("sun", from: [ids[1]]) == [ids[1]])
        #expect(try library.keywords().map(\.name) == ["beach"], "a keyword no asset carries is forgotten")

        let described = try library.describe([ids[1]])[0]
        #expect(described.favorite && described.albums == ["Lisbon"] && described.keywords == ["beach"])
        var query = AssetQuery()
        (query.favorite, query.album, query.keywords, query.sort) = (true, "Lisbon", ["beach"], .id)
        #expect(try library.assetIDs(matching: query) == [ids[1]])

        // In the trash, an asset leaves its albums' and keywords' counts and is no cover;
        // restored, it is back in all of them (0015).
        _ = try library.trash([ids[1]])
        #expect(try library.album(named: "Lisbon").album.assets == 2)
        #expect(try library.album(named: "Lisbon").album.cover == ids[3], "a trashed cover: the first outside the trash")
        #expect(try library.keywords().map(\.assets) == [2])
        _ = try library.restore([ids[1]])
        #expect(try library.album(named: "Lisbon").album.assets == 3 && library.album(named: "Lisbon").album.cover == ids[1])
        #expect(try library.keywords().map(\.assets) == [3])

        // Emptying the trash takes an asset out of everything; the album and keyword stay.
        _ = try library.trash([ids[1]])
        _ = try library.emptyTrash()
        #expect(try library.album(named: "Lisbon").assets == [ids[3], ids[2]])
        #expect(try library.album(named: "Lisbon").album.cover == ids[3], "the chosen cover gone, the first again")
        #expect(try library.keywords().map(\.assets) == [2])
        // PostgreSQL checks every foreign key as it writes; SQLite, when asked.
        let violations = try library.catalog.read { db in db.dialect == .sqlite ? try db.rows("PRAGMA foreign_key_check").count : 0 }
        #expect(violations == 0)

        // Asked to, a non-empty album is deleted; its assets stay, in their other albums.
        try library.createAlbum("Kept")
        _ = try library.addToAlbum("Kept", [ids[3]])
        try library.deleteAlbum("Lisbon", evenIfNotEmpty: true)
        #expect(try library.albums().map(\.name) == ["Kept"])
        #expect(try library.describe([ids[3]])[0].albums == ["Kept"])
        #expect(try library.catalog.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM album_asset") } == 1)
    }
}
