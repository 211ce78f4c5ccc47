import ArgumentParser
import Foundation
import Library

struct AlbumCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Make an empty album.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Its name.", valueName: "name"))
    var name: String

    @Flag(name: .long, help: "Print JSON: the album.")
    var json = false

    func run() throws {
        let album = try libraryOptions.open(.write).createAlbum(name)
        print(json ? try Terminal.json(album) : "Album \"\(album.name.terminalSafe())\" made; `camlib album add` puts assets in it.")
    }
}
