import ArgumentParser
import Foundation
import Library

struct AlbumRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Take assets out of an album (they stay in the library).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The album's name.", valueName: "name"))
    var name: String

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String]

    @OptionGroup var output: JSONOutput<AlbumRemoveCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        try MembershipChange.run(assets, in: library, json: output.json, key: "album", name: name, verb: "removed") {
            try library.removeFromAlbum(name, $0)
        } sentence: { removed, absent in
            "Took \(counted(removed, "asset")) out of \"\(name.terminalSafe())\"" + (absent > 0 ? " (\(counted(absent, "was", plural: "were")) not in it)." : ".")
        }
    }
}

extension AlbumRemoveCommand: JSONDescribed {
    static let jsonFields = "{album, removed: [ids]}"
}
