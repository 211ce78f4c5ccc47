import ArgumentParser
import Foundation
import Library

struct QueryCommand: ParsableCommand {
    /// The command's name, apart from its configuration: building that reflows its help
    /// text, which a listing does not need (``CatalogReads``).
    static let name = "query"

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "List the assets in the library.",
        discussion: Help.reflow(
            """
            Filters combine with AND. Dates are ISO 8601 ("2025-05-26" or
            "2025-05-26T09:27:06-05:00"); a photo's own time zone is used when the file
            records it. Examples:
              camlib query --kind live --since 2025-01-01
              camlib query --model "iPhone 15" --json
              camlib query --name 'IMG_35*' --csv
              camlib query --has depth --has portrait-matte

            With --limit, the table's last line gives the cursor to continue from, and
            with --json every asset carries its "cursor"; --after CURSOR lists what
            follows it.
            For example:
              camlib query --limit 50 --json
              camlib query --limit 50 --json --after CURSOR
            A cursor marks a place in one order (give the same --sort and --reverse),
            not a row number: assets imported meanwhile do not shift the pages.
            Output is printed while the catalog is read, so a large result starts at
            once and takes little memory.
            """))

    @OptionGroup var libraryOptions: LibraryOptions
    @OptionGroup var output: OutputFormat<QueryCommand>

    @OptionGroup var filters: QueryFilters

    func run() throws {
        try Self.list(libraryOptions.location, filters.makeQuery(), output.format)
    }

    /// What `camlib query` does once its arguments are read (by ArgumentParser, or by
    /// ``QuickArguments``).
    static func list(_ location: URL, _ query: AssetQuery, _ format: AssetListPrinter.Format) throws {
        let library = try LibraryOptions.open(location, .read)
        let printer = AssetListPrinter(format: format, trashed: query.trashed)
        // A table and CSV print an asset's facts and its original's name and path only.
        let detail: AssetDetail = format == .json ? .full : .originals
        let next = try library.assets(matching: query, detail: detail) { printer.print($0) }
        printer.finish(next: next)
    }
}

extension QueryCommand: JSONDescribed {
    static let jsonFields = "an array of assets (docs/reference/json.md has the fields)"
}
