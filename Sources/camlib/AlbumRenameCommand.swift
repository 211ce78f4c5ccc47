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

    func run() throws {
        try libraryOptions.open(.write).renameAlbum(name, to: newName)
        print("Album \"\(name.terminalSafe())\" is now \"\(newName.trimmingCharacters(in: .whitespaces).terminalSafe())\".")
    }
}
