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

    @OptionGroup var output: JSONOutput<AlbumDeleteCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        let held = try library.album(named: name).assets.count
        try library.deleteAlbum(name, evenIfNotEmpty: evenIfNotEmpty)
        if output.json {
            print(try Terminal.json(["deleted": AnyEncodable(name), "assetsKept": AnyEncodable(held)]))
        } else {
            print("Album \"\(name.terminalSafe())\" deleted\(held > 0 ? "; its \(counted(held, "asset")) stay in the library" : "").")
        }
    }
}

extension AlbumDeleteCommand: JSONDescribed {
    static let jsonFields = "{deleted: NAME, assetsKept: N}"
}
