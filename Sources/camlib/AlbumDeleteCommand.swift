import ArgumentParser
import Foundation
import Library

struct AlbumDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an album. Its assets stay in the library.",
        discussion: """
            An album that holds assets is deleted only with --even-if-not-empty: its assets \
            stay in the library and in their other albums, only this album goes.
            """)

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The album's name.", valueName: "name"))
    var name: String

    @Flag(help: "Delete it even when it holds assets (they stay in the library).")
    var evenIfNotEmpty = false

    func run() throws {
        try libraryOptions.open(.write).deleteAlbum(name, evenIfNotEmpty: evenIfNotEmpty)
        print("Album \"\(name.terminalSafe())\" deleted.")
    }
}
