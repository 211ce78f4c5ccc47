import ArgumentParser
import Foundation
import Library

struct FavoriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorite",
        abstract: "Mark assets as favourites (or, with --remove, unmark them).",
        discussion: Help.reflow(
            """
            `camlib query --favorite` lists the favourites.
            Examples:
              camlib favorite 12 14
              camlib favorite --remove 12
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String]

    @Flag(name: .long, help: "Unmark them.")
    var remove = false

    @OptionGroup var output: JSONOutput<FavoriteCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = AssetReferences.find(assets, in: library)
        let changes = try library.setFavorite(ids, !remove)
        if output.json {
            print(try Terminal.json(changes))
        } else {
            let changed = changes.filter(\.changed).count
            let what = remove ? "no longer favourites" : "favourites"
            var line = "\(counted(changed, "asset")) \(remove ? "are" : "marked as") \(what)"
            if changed == 1 { line = "1 asset \(remove ? "is no longer a favourite" : "marked as a favourite")" }
            let unchanged = changes.count - changed
            if unchanged > 0 { line += " (\(counted(unchanged, "was", plural: "were")) already)" }
            print(line + ".")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}

extension FavoriteCommand: JSONDescribed {
    static let jsonFields = "[{asset, favorite, changed}]"
}
