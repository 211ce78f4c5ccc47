import ArgumentParser
import Foundation
import Library

struct KeywordAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Give assets a keyword.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("The keyword.", valueName: "keyword"))
    var keyword: String

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String]

    @Flag(name: .long, help: "Print JSON: {keyword, added: [ids]}.")
    var json = false

    func run() throws {
        let library = try libraryOptions.open(.write)
        let (ids, unknown) = AssetReferences.find(assets, in: library)
        let added = try library.addKeyword(keyword, to: ids)
        if json {
            print(try Terminal.json(["keyword": AnyEncodable(keyword), "added": AnyEncodable(added)]))
        } else {
            var line = "\"\(keyword.terminalSafe())\" given to \(counted(added.count, "asset"))"
            if added.count < ids.count { line += " (\(counted(ids.count - added.count, "had", plural: "had")) it already)" }
            print(line + ".")
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}
