import ArgumentParser
import Foundation
import Library

struct CatalogCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Move the library's catalog to PostgreSQL, or back into its folder.",
        discussion: Help.reflow(
            """
            --to postgresql://…: copies every row of catalog.sqlite, with the same ids, into
            the database (made on the server beforehand, empty; camlib migrates it),
            checks each table by its count and a checksum of its rows, and only then
            switches the library to it: catalog.url says where the catalog is, and
            catalog.sqlite is renamed catalog-moved-to-postgresql.sqlite, kept until you
            delete it.

            --to sqlite: copies the catalog from PostgreSQL into a new catalog.sqlite,
            checked the same way, and removes catalog.url; the database on the server is
            left as it was, for you to drop.

            A copy that differs, or any error, leaves the library as it was. Stop other
            camlib processes on the library (serve, worker, import) first.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(
        help: ArgumentHelp(
            "Where to: postgresql://USER@HOST[:PORT]/DATABASE (postgresql://USER@/DATABASE?host=/run/postgresql for a socket), or sqlite for the library's folder.",
            valueName: "url"))
    var to: String

    @OptionGroup var output: JSONOutput<CatalogCopyCommand>

    struct Result: Encodable {
        var library: String
        var catalog: String
        var tables: [CatalogCopyTable]
    }

    func run() throws {
        let location = to == "sqlite" ? nil : try PostgresLocation(url: to)
        let library = try libraryOptions.open(.write)
        let destination = location?.description ?? library.layout.catalog.path
        Terminal.error("camlib: copying the catalog of \(library.root.path) to \(destination)")
        let summaries = CatalogCopy.derived.joined(separator: ", ")
        let progress = { (step: CatalogCopy.Progress) in
            switch step {
            case .copied(let table, let rows): Terminal.error("  copied \(table): \(rows) row\(rows == 1 ? "" : "s")")
            case .summarised where location == nil:
                Terminal.error("  checked the summaries (\(summaries)) against what SQLite makes of the copied rows")
            case .summarised: Terminal.error("  made the summaries (\(summaries)) from the copied rows")
            case .checked(let table, let rows): Terminal.error("  checked \(table): \(rows) row\(rows == 1 ? "" : "s") alike on both sides")
            }
        }
        let tables = try location.map { try library.moveCatalog(to: $0, progress: progress) } ?? library.moveCatalogIntoFolder(progress: progress)
        if output.json {
            print(try Terminal.json(Result(library: library.root.path, catalog: destination, tables: tables)))
            return
        }
        let rows = tables.reduce(0) { $0 + $1.rows }
        if location != nil {
            print(
                """
                The catalog is on PostgreSQL now (\(destination)): \(tables.count) tables, \(rows) rows, each table checked.
                The old catalog is \(library.root.appendingPathComponent(PhotoLibrary.catalogMovedName).path); delete it when you no longer want it.
                """)
        } else {
            print("The catalog is in the library's folder now (\(destination)): \(tables.count) tables, \(rows) rows, each table checked. The database on PostgreSQL is as it was; drop it when you no longer want it.")
        }
    }
}

extension CatalogCopyCommand: JSONDescribed {
    static let jsonFields = "{library, catalog, tables: [{name, rows, checksum}]}"
}
