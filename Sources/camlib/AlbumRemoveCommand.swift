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

    @Flag(name: .long, help: "Print JSON: {album, removed: [ids]}.")
    var json = false

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = AssetReferences.find(assets, in: library)
        let removed = try library.removeFromAlbum(name, ids)
        if json {
            print(try Terminal.json(["album": AnyEncodable(name), "removed": AnyEncodable(removed)]))
        } else {
            var line = "Took \(counted(removed.count, "asset")) out of \"\(name.terminalSafe())\""
            if removed.count < ids.count { line += " (\(counted(ids.count - removed.count, "was", plural: "were")) not in it)" }
            print(line + ".")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}
