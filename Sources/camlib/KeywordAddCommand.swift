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

    @OptionGroup var output: JSONOutput<KeywordAddCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        try MembershipChange.run(assets, in: library, json: output.json, key: "keyword", name: keyword, verb: "added") {
            try library.addKeyword(keyword, to: $0)
        } sentence: { added, already in
            "\"\(keyword.terminalSafe())\" given to \(counted(added, "asset"))" + (already > 0 ? " (\(counted(already, "had", plural: "had")) it already)." : ".")
        }
    }
}

extension KeywordAddCommand: JSONDescribed {
    static let jsonFields = "{keyword, added: [ids]}"
}
