import ArgumentParser
import Foundation
import Library

struct KeywordRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take a keyword off assets.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The keyword.", valueName: "keyword"))
    var keyword: String

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String]

    @Flag(name: .long, help: "Print JSON: {keyword, removed: [ids]}.")
    var json = false

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = AssetReferences.find(assets, in: library)
        let removed = try library.removeKeyword(keyword, from: ids)
        if json {
            print(try Terminal.json(["keyword": AnyEncodable(keyword), "removed": AnyEncodable(removed)]))
        } else {
            print("\"\(keyword.terminalSafe())\" taken off \(counted(removed.count, "asset")).")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}
