import ArgumentParser
import Foundation
import Library

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Take assets out of the trash, whole: files, edits and all.",
        discussion: Help.reflow(
            """
            Examples:
              camlib restore 12 14
              camlib restore --all
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String] = []

    @Flag(name: .long, help: "Restore everything in the trash.")
    var all = false

    @OptionGroup var output: JSONOutput<RestoreCommand>

    func validate() throws {
        if assets.isEmpty && !all { throw ValidationError("name assets to restore, or use --all") }
        if !assets.isEmpty && all { throw ValidationError("name assets or use --all, not both") }
    }

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = all ? (try library.trashContents().map(\.asset), 0) : AssetReferences.find(assets, in: library)
        let changes = try library.restore(ids)
        if output.json {
            print(try Terminal.json(changes))
        } else {
            let restored = changes.filter { $0.outcome == .restored }.count
            let absent = changes.count - restored
            var line = "Restored \(counted(restored, "asset"))"
            if absent > 0 { line += " (\(counted(absent, "was", plural: "were")) not in the trash)" }
            print(line + ".")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}

extension RestoreCommand: JSONDescribed {
    static let jsonFields = "what changed for each asset"
}
