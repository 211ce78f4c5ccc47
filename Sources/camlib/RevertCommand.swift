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

    func run() throws {
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        print(try library.revert(asset: id) ? "Asset \(id): the original is current again." : "Asset \(id): the original already is current.")
    }
}
