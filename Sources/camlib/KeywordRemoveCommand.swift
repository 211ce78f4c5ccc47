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

    @OptionGroup var output: JSONOutput<KeywordRemoveCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        try MembershipChange.run(assets, in: library, json: output.json, key: "keyword", name: keyword, verb: "removed") {
            try library.removeKeyword(keyword, from: $0)
        } sentence: { removed, _ in
            "\"\(keyword.terminalSafe())\" taken off \(counted(removed, "asset"))."
        }
    }
}

extension KeywordRemoveCommand: JSONDescribed {
    static let jsonFields = "{keyword, removed: [ids]}"
}
