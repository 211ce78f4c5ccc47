import ArgumentParser
import Foundation

/// A command that prints JSON with `--json`: what its JSON holds, for the flag's help.
protocol JSONDescribed {
    /// The JSON's shape, as the help shows it: "{album, added: [ids]}".
    static var jsonFields: String { get }
}

/// `--json`, the one output option of every command that lists or changes something:
/// the same flag and wording everywhere, with the fields of the command's JSON.
/// (Generic over the command only for its help text.)
struct JSONOutput<Command: JSONDescribed>: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp("Print JSON on stdout instead of text: \(Command.jsonFields)."))
    var json = false
}

/// `--json` or `--csv`, for commands that print a table of assets (`query`, `trash --list`).
struct OutputFormat<Command: JSONDescribed>: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp("Print JSON on stdout instead of text: \(Command.jsonFields)."))
    var json = false

    @Flag(name: .long, help: "Print CSV with a header row instead of a table.")
    var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
    }

    var format: AssetListPrinter.Format { json ? .json : csv ? .csv : .table }
}
