import ArgumentParser
import Foundation
import Library

struct KeywordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyword",
        abstract: "Keywords: words you give assets to find them by.",
        discussion: Help.reflow(
            """
            `camlib query --keyword WORD` lists the assets with it (repeat for all of several).
            Examples:
              camlib keyword add beach 12 14
              camlib keyword remove beach 14
              camlib keyword list
            """),
        subcommands: [KeywordListCommand.self, KeywordAddCommand.self, KeywordRemoveCommand.self])
}
