import ArgumentParser
import Foundation
import Library

struct KeywordListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The keywords, with how many assets have each.")

    @OptionGroup var libraryOptions: LibraryOptions

    @OptionGroup var output: JSONOutput<KeywordListCommand>

    func run() throws {
        let keywords = try libraryOptions.open(.read).keywords()
        if output.json {
            struct Entry: Encodable { var name: String, assets: Int }
            return print(try Terminal.json(keywords.map { Entry(name: $0.name, assets: $0.assets) }))
        }
        if keywords.isEmpty { return print("No keywords. `camlib keyword add WORD ASSET...` gives one.") }
        print(AssetTable.table(header: ["KEYWORD", "ASSETS"], rows: keywords.map { [$0.name.terminalSafe(), String($0.assets)] }), terminator: "")
    }
}

extension KeywordListCommand: JSONDescribed {
    static let jsonFields = "[{name, assets}]"
}
