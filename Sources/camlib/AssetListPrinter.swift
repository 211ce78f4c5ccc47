import Foundation
import Library

/// Prints a listing of assets chunk by chunk, as the library reads it, so that memory
/// stays flat however many assets a query selects: a table (its columns as wide as the
/// first chunk's cells; a longer cell later pushes its line along), CSV, or a JSON array
/// (the JSON contract, as ``AssetDescription/prettyJSON`` writes it).
final class AssetListPrinter {
    enum Format { case table, csv, json }

    private let format: Format
    /// A listing of the trash: with when each asset went there.
    private let trashed: Bool
    private var widths: [Int]?
    private(set) var count = 0

    init(format: Format, trashed: Bool = false) {
        (self.format, self.trashed) = (format, trashed)
        switch format {
        case .csv: write((trashed ? AssetTable.trashCSVColumns : AssetTable.csvColumns).joined(separator: ",") + "\n")
        case .json: write("[")
        case .table: break
        }
    }

    func print(_ assets: [AssetDescription]) {
        var out = ""
        switch format {
        case .table:
            let rows = assets.map { AssetTable.row($0, trashed: trashed) }
            let header = trashed ? AssetTable.trashHeader : AssetTable.header
            if widths == nil {
                var widths = header.map(\.count)
                for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
                self.widths = widths
                if !rows.isEmpty { out += AssetTable.line(header, widths: widths) + "\n" }
            }
            for row in rows { out += AssetTable.line(row, widths: widths!) + "\n" }
        case .csv:
            for asset in assets { out += AssetTable.csvLine(asset, trashed: trashed) }
        case .json:
            if !assets.isEmpty {
                write(count == 0 ? "\n" : ",\n")
                StandardOutput.write(AssetDescription.prettyJSONElements(assets))
            }
        }
        count += assets.count
        write(out)
    }

    /// Ends the listing; `next` is where a listing cut by its limit continues.
    func finish(next: AssetCursor?) {
        switch format {
        case .table:
            if count == 0 {
                write(trashed ? "No assets in the trash.\n" : "No assets.\n")
            } else {
                write("\(count) asset\(count == 1 ? "" : "s")" + (next.map { "; more: --after \($0)" } ?? "") + "\n")
            }
        case .csv: break
        case .json: write(count == 0 ? "]\n" : "\n]\n")
        }
    }

    /// `assets` as a whole JSON array (the JSON contract), as `query --json` prints it.
    static func printAll(_ assets: [AssetDescription]) {
        let printer = AssetListPrinter(format: .json)
        printer.print(assets)
        printer.finish(next: nil)
    }

    private func write(_ text: String) {
        StandardOutput.write(text)
    }
}
