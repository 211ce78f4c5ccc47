import ArgumentParser
import Foundation
import Library

struct AlbumCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Make an empty album.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Its name.", valueName: "name"))
    var name: String

    @OptionGroup var output: JSONOutput<AlbumCreateCommand>

    func run() throws {
        let album = try libraryOptions.open(.write).createAlbum(name)
        print(output.json ? try Terminal.json(album) : "Album \"\(album.name.terminalSafe())\" made; `camlib album add` puts assets in it.")
    }
}

extension AlbumCreateCommand: JSONDescribed {
    static let jsonFields = "the album {id, name, assets, cover, createdAt}"
}
