import ArgumentParser
import Foundation
import Library

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a new, empty library, its catalog in its folder or on PostgreSQL.",
        discussion: Help.reflow(
            """
            `camlib import` and `camlib capture` make a library with its catalog in its folder
            (SQLite) when there is none; `camlib init` makes one first, and is how a
            library gets its catalog on a PostgreSQL server, for several machines to share:
            make an empty database on the server, then
              camlib init --library /mnt/photos --catalog postgresql://me@nas/photos
            The password comes from $PGPASSWORD or ~/.pgpass, never from the library: the
            library's catalog.url holds the URL without it. Every machine that mounts the
            folder then uses the same catalog. A catalog in the folder can be moved to
            PostgreSQL later with `camlib catalog copy`. Every command works the same on
            either; docs/guide/sharing.md walks through a library shared by several
            machines.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: ArgumentHelp("The catalog on PostgreSQL: postgresql://USER@HOST[:PORT]/DATABASE, an empty database.", valueName: "url"))
    var catalog: String?

    @OptionGroup var output: JSONOutput<InitCommand>

    struct Result: Encodable {
        var library: String
        var catalog: String
    }

    func run() throws {
        let location = try catalog.map { try PostgresLocation(url: $0) }
        let library = try PhotoLibrary.create(at: libraryOptions.location, postgres: location)
        OpenLibraries.add(library)
        let catalog = location?.description ?? library.layout.catalog.path
        if output.json {
            print(try Terminal.json(Result(library: library.root.path, catalog: catalog)))
        } else {
            let place = location == nil ? "its catalog in it" : "its catalog on PostgreSQL (\(catalog))"
            print("Library made at \(library.root.path), \(place); `camlib import` adds to it.")
        }
    }
}

extension InitCommand: JSONDescribed {
    static let jsonFields = "{library, catalog}"
}
