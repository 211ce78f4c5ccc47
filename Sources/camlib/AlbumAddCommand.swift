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

    @Flag(name: .long, help: "Print JSON: {album, added: [ids]}.")
    var json = false

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = AssetReferences.find(assets, in: library)
        let added = try library.addToAlbum(name, ids)
        if json {
            print(try Terminal.json(["album": AnyEncodable(name), "added": AnyEncodable(added)]))
        } else {
            var line = "Added \(counted(added.count, "asset")) to \"\(name.terminalSafe())\""
            if added.count < ids.count { line += " (\(counted(ids.count - added.count, "was", plural: "were")) in it already)" }
            print(line + ".")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}
