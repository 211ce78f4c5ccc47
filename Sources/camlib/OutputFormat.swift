import ArgumentParser
import Foundation

/// How a list of assets is printed.
struct OutputFormat: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (an array of assets; see README.md for the fields).")
    var json = false

    @Flag(name: .long, help: "Print CSV with a header row.")
    var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
    }

    var format: AssetListPrinter.Format { json ? .json : csv ? .csv : .table }
}
