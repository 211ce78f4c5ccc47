import ArgumentParser
import Foundation
import Library

struct AlbumDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete an empty album (`album remove` its assets first; they stay in the library).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The album's name.", valueName: "name"))
    var name: String

    func run() throws {
        try libraryOptions.open(.write).deleteAlbum(name)
        print("Album \"\(name.terminalSafe())\" deleted.")
    }
}
