import ArgumentParser
import Foundation
import Library

struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Where the library's catalog is: SQLite in its folder, or PostgreSQL.",
        discussion: Help.reflow(
            """
            A library's catalog is a SQLite file in its folder (catalog.sqlite), unless the
            library was made with `camlib init --catalog postgresql://…` or its catalog was
            copied there: then catalog.url in the folder says where it is, without a
            password (camlib reads that from $PGPASSWORD or ~/.pgpass). Several machines can
            use a library whose catalog is on PostgreSQL, each mounting its folder.
            Examples:
              camlib catalog copy --to postgresql://camlib@nas/photos
            """),
        subcommands: [CatalogCopyCommand.self])
}
