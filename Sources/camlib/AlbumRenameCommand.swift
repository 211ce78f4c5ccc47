import ArgumentParser
import Foundation
import Library

struct AlbumRenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give an album another name.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Its name now.", valueName: "name"))
    var name: String

    @Argument(help: ArgumentHelp("Its new name.", valueName: "new-name"))
    var newName: String

    @OptionGroup var output: JSONOutput<AlbumRenameCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        try library.renameAlbum(name, to: newName)
        let album = try library.album(named: newName.trimmingCharacters(in: .whitespaces)).album
        print(output.json ? try Terminal.json(album) : "Album \"\(name.terminalSafe())\" is now \"\(album.name.terminalSafe())\".")
    }
}

extension AlbumRenameCommand: JSONDescribed {
    static let jsonFields = "{id, name, assets, cover, createdAt}"
}
