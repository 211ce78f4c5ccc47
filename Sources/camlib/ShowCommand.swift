import ArgumentParser
import Foundation
import Library

struct ShowCommand: ParsableCommand {
    /// The command's name, apart from its configuration (see ``QueryCommand/name``).
    static let name = "show"

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "Everything about one asset.",
        discussion: Help.reflow(
            """
            ASSET is an id from `camlib query`, a path of one of the asset's files in the
            library, or any file elsewhere whose exact bytes the library holds.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An asset id or a file path.", valueName: "asset"))
    var asset: String

    @OptionGroup var output: JSONOutput<ShowCommand>

    func run() throws {
        try Self.show(libraryOptions.location, asset, json: output.json)
    }

    /// What `camlib show` does once its arguments are read (by ArgumentParser, or by
    /// ``QuickArguments``).
    static func show(_ location: URL, _ asset: String, json: Bool) throws {
        let library = try LibraryOptions.open(location, .read)
        let id = try library.findAsset(asset)
        guard let description = try library.describe([id]).first else { throw LibraryError.assetNotFound(asset) }
        if json {
            StandardOutput.write(description.prettyJSON + Array("\n".utf8))
        } else {
            print(AssetTable.detail(description), terminator: "")
        }
    }
}

extension ShowCommand: JSONDescribed {
    static let jsonFields = "the asset, with the same fields as `camlib query --json`"
}
