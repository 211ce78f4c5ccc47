import ArgumentParser
import Foundation
import Library

struct AlbumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "album",
        abstract: "Albums: assets in an order of your own, with a cover; an asset may be in many.",
        discussion: Help.reflow(
            """
            An album holds assets, it does not copy them: removing an asset from an album,
            or deleting an empty album, leaves the asset in the library.
            `camlib query --album NAME` lists an album's assets with any other filter.
            Examples:
              camlib album create "Summer 2025"
              camlib album add "Summer 2025" 12 14 15
              camlib album cover "Summer 2025" 14
              camlib album list
              camlib album list "Summer 2025"
              camlib album rename "Summer 2025" "Lisbon, July 2025"
            """),
        subcommands: [
            AlbumListCommand.self, AlbumCreateCommand.self, AlbumAddCommand.self, AlbumRemoveCommand.self, AlbumRenameCommand.self,
            AlbumCoverCommand.self, AlbumDeleteCommand.self,
        ])
}
