import ArgumentParser
import Foundation
import Library

struct AlbumAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Put assets at the end of an album, in the order given (those in it already stay where they are).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The album's name.", valueName: "name"))
    var name: String

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String]

    @OptionGroup var output: JSONOutput<AlbumAddCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        try MembershipChange.run(assets, in: library, json: output.json, key: "album", name: name, verb: "added") {
            try library.addToAlbum(name, $0)
        } sentence: { added, already in
            "Added \(counted(added, "asset")) to \"\(name.terminalSafe())\"" + (already > 0 ? " (\(counted(already, "was", plural: "were")) in it already)." : ".")
        }
    }
}

extension AlbumAddCommand: JSONDescribed {
    static let jsonFields = "{album, added: [ids]}"
}
