import ArgumentParser
import Foundation
import Library

struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Make an asset's original its current version again (its edit history stays).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An asset id or a path of one of its files.", valueName: "asset"))
    var asset: String

    @OptionGroup var output: JSONOutput<RevertCommand>

    struct Output: Encodable {
        var asset: Int64
        var reverted: Bool
        /// The files of the asset's current version, as `show --json` lists them.
        var resources: [String]
    }

    func run() throws {
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        let reverted = try library.revert(asset: id)
        if output.json {
            let files = try library.describe([id]).first?.resources.map(\.path) ?? []
            print(try Terminal.json(Output(asset: id, reverted: reverted, resources: files)))
        } else {
            print(reverted ? "Asset \(id): the original is current again." : "Asset \(id): the original already is current.")
        }
    }
}

extension RevertCommand: JSONDescribed {
    static let jsonFields = "{asset, reverted (false when the original already was current), resources: the current files}"
}
