import ArgumentParser
import Foundation
import Library

struct AlbumListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The albums with their sizes; with a name, that album's assets in its order.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An album's name.", valueName: "name"))
    var name: String?

    @OptionGroup var output: JSONOutput<AlbumListCommand>

    func run() throws {
        let library = try libraryOptions.open(.read)
        if let name {
            let (album, ids) = try library.album(named: name)
            if output.json { return print(try Terminal.json(Contents(album: album, assets: ids))) }
            let assets = try library.describe(ids)
            print("\(album.name.terminalSafe()): \(counted(album.assets, "asset"))" + (album.cover.map { ", cover \($0)" } ?? ""))
            if !assets.isEmpty { print(AssetTable.table(header: AssetTable.header, rows: assets.map { AssetTable.row($0) }), terminator: "") }
            return
        }
        let albums = try library.albums()
        if output.json { return print(try Terminal.json(albums)) }
        if albums.isEmpty { return print("No albums. `camlib album create NAME` makes one.") }
        let rows = albums.map { [$0.name.terminalSafe(), String($0.assets), $0.cover.map(String.init) ?? "-", String($0.createdAt.prefix(10))] }
        print(AssetTable.table(header: ["ALBUM", "ASSETS", "COVER", "CREATED"], rows: rows), terminator: "")
    }

    struct Contents: Encodable {
        var album: Album
        var assets: [Int64]
    }
}

extension AlbumListCommand: JSONDescribed {
    static let jsonFields = "the albums [{id, name, assets, cover, createdAt}]; with a name, {album, assets: [ids]}"
}
