import ArgumentParser
import Foundation
import Library

struct AlbumCoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cover", abstract: "Show one of an album's assets for it (without one, its first is shown).")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The album's name.", valueName: "name"))
    var name: String

    @Argument(help: ArgumentHelp("An asset in it: an id or a path of one of its files.", valueName: "asset"))
    var asset: String

    @OptionGroup var output: JSONOutput<AlbumCoverCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        try library.setAlbumCover(name, id)
        print(output.json ? try Terminal.json(try library.album(named: name).album) : "Asset \(id) is the cover of \"\(name.terminalSafe())\".")
    }
}

extension AlbumCoverCommand: JSONDescribed {
    static let jsonFields = "{id, name, assets, cover, createdAt}"
}
