import ArgumentParser
import Foundation
import Library

extension AssetKind: ExpressibleByArgument {}
extension AssetQuery.Sort: ExpressibleByArgument {}
extension AssetQuery.PairedBy: ExpressibleByArgument {}

/// How a list of assets is printed.
struct OutputFormat: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (an array of assets; see README.md for the fields).")
    var json = false

    @Flag(name: .long, help: "Print CSV with a header row.")
    var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
    }
}

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
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
            """))

    @OptionGroup var libraryOptions: LibraryOptions
    @OptionGroup var output: OutputFormat

    @OptionGroup var filters: QueryFilters

    func run() throws {
        let library = try libraryOptions.open(create: false)
        let assets = try library.describe(try filters.makeQuery().run(in: library))
        if output.json {
            print(try Terminal.json(assets))
        } else if output.csv {
            print(AssetTable.csv(assets), terminator: "")
        } else {
            print(AssetTable.text(assets), terminator: "")
        }
    }
}

/// The filters and order of `camlib query`, shared with `camlib export --query`.
struct QueryFilters: ParsableArguments {
    @Option(name: .long, help: "Only assets of this kind (photo, live, video, motion); repeatable.")
    var kind: [AssetKind] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only assets that carry this; repeatable.",
            discussion: "depth (depth or disparity data), disparity, portrait-matte, skin-matte, hair-matte, teeth-matte, glasses-matte, sky-matte, gain-map, other (an auxiliary image camlib has no name for), motion (a Motion Photo's embedded movie).",
            valueName: "feature"))
    var has: [String] = []

    @Option(name: .long, help: "Camera make contains this text (case-insensitive).")
    var make: String?

    @Option(name: .long, help: "Camera model contains this text (case-insensitive).")
    var model: String?

    @Option(name: .long, help: "Captured at or after this date or time.")
    var since: String?

    @Option(name: .long, help: "Captured on or before this date or time.")
    var until: String?

    @Option(name: .customLong("paired-by"), help: "Live Photos paired by this rule (contentIdentifier, stem), or none.")
    var pairedBy: AssetQuery.PairedBy?

    @Option(name: .long, help: "An original file name matches this pattern (* and ?, case-insensitive).")
    var name: String?

    @Option(name: .long, help: "Order by captured, imported, name or id.")
    var sort: AssetQuery.Sort = .captured

    @Flag(name: .long, help: "Reverse the order.")
    var reverse = false

    @Option(name: .long, help: "At most this many assets.")
    var limit: Int?

    func validate() throws {
        for (label, value) in [("--since", since), ("--until", until)] {
            if let value, !AssetQuery.isValidDate(value) {
                throw ValidationError("\(label) \(value): not a date; use 2025-05-26 or 2025-05-26T09:27:06")
            }
        }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        for feature in has where AssetQuery.Feature(name: feature) == nil {
            throw ValidationError("--has \(feature): unknown; use one of \(AssetQuery.Feature.names.joined(separator: ", "))")
        }
    }

    func makeQuery() -> AssetQuery {
        var query = AssetQuery()
        query.kinds = kind
        query.has = has.compactMap(AssetQuery.Feature.init(name:))
        query.make = make
        query.model = model
        query.since = since
        query.until = until
        query.pairedBy = pairedBy
        query.name = name
        query.sort = sort
        query.descending = reverse
        query.limit = limit
        return query
    }
}

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Everything about one asset.",
        discussion: Help.reflow(
            """
            ASSET is an id from `camlib query`, a path of one of the asset's files in the
            library, or any file elsewhere whose exact bytes the library holds.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An asset id or a file path.", valueName: "asset"))
    var asset: String

    @Flag(name: .long, help: "Print JSON (the same fields as `camlib query --json`, one object).")
    var json = false

    func run() throws {
        let library = try libraryOptions.open(create: false)
        let id = try library.findAsset(asset)
        guard let description = try library.describe([id]).first else { throw LibraryError.assetNotFound(asset) }
        if json {
            print(try Terminal.json(description))
        } else {
            print(AssetTable.detail(description), terminator: "")
        }
    }
}
