import Filters
import Foundation
import Library

/// Text renderings of assets: a table, CSV, and one asset in detail.
enum AssetTable {
    static let header = ["ID", "KIND", "CAPTURED", "CAMERA", "SIZE", "PAIRED", "PLACE", "NAME"]
    /// A listing of the trash: when each asset went there, after its id.
    static let trashHeader = ["ID", "TRASHED"] + header.dropFirst()

    /// The cells of an asset's table row, under ``header`` (``trashHeader`` when `trashed`),
    /// safe to print on a terminal.
    static func row(_ a: AssetDescription, trashed: Bool = false) -> [String] {
        var cells: [String] = [String(a.id)]
        if trashed { cells.append(a.trashedAt.map { String($0.prefix(10)) } ?? "-") }
        let camera: String = [a.make, a.model].compactMap { $0 }.joined(separator: " ").nonEmpty ?? "-"
        let size: String = a.width.flatMap { w in a.height.map { "\(w)x\($0)" } } ?? "-"
        let paired: String = a.pairing.map { "\($0.rule.rawValue) \(oneDecimal($0.confidence))" } ?? "-"
        let place: String = a.place.map(shortPlace) ?? "-"
        let more: [String] = [a.kind.rawValue, a.capturedAt ?? "-", camera, size, paired, place, a.primaryOriginal?.originalName ?? "-"]
        return cells + more.map { $0.terminalSafe() }
    }

    /// `Huntsville, US`: the city (else the region) and the country's code, short enough
    /// for a table's column.
    static func shortPlace(_ p: PlaceName) -> String {
        [p.city ?? p.region, p.countryCode].compactMap { $0 }.joined(separator: ", ")
    }

    /// Columns padded to their widest cell, two spaces apart; the last column unpadded.
    static func table(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return ([line(header, widths: widths)] + rows.map { line($0, widths: widths) }).joined(separator: "\n") + "\n"
    }

    /// One table line: cells padded to `widths` (a longer cell pushes the rest along).
    static func line(_ cells: [String], widths: [Int]) -> String {
        cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padded(to: widths[i]) }.joined(separator: "  ")
    }

    static let csvColumns = [
        "id", "kind", "capturedAt", "make", "model", "width", "height", "orientation", "contentIdentifier", "pairedBy",
        "pairingConfidence", "duration", "originalName", "path", "latitude", "longitude", "city", "region", "country", "countryCode",
    ]
    /// A listing of the trash: ``csvColumns`` and when each asset went there.
    static let trashCSVColumns = csvColumns + ["trashedAt"]

    /// An asset's CSV line, under ``csvColumns`` (``trashCSVColumns`` when `trashed`).
    static func csvLine(_ a: AssetDescription, trashed: Bool = false) -> String {
        var fields: [String?] = [
            String(a.id), a.kind.rawValue, a.capturedAt, a.make, a.model, a.width.map(String.init), a.height.map(String.init),
            a.orientation.map(String.init), a.contentIdentifier, a.pairing?.rule.rawValue,
            a.pairing.map { String($0.confidence) }, a.duration.map { String($0) }, a.primaryOriginal?.originalName,
            a.primaryOriginal?.path, a.location.map { String($0.latitude) }, a.location.map { String($0.longitude) },
            a.place?.city, a.place?.region, a.place?.country, a.place?.countryCode,
        ]
        if trashed { fields.append(a.trashedAt) }
        return fields.map { escape($0 ?? "") }.joined(separator: ",") + "\n"
    }

    /// RFC 4180: quote fields holding a comma, quote or line break; double inner quotes.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func detail(_ asset: AssetDescription) -> String {
        let a = asset.terminalSafe
        var lines: [(String, String)] = [("Asset", "\(a.id) (\(a.kind.rawValue))")]
        if let t = a.capturedAt { lines.append(("Captured", t)) }
        let camera = [a.make, a.model].compactMap { $0 }.joined(separator: " ")
        if !camera.isEmpty { lines.append(("Camera", camera)) }
        if let lens = a.lensModel { lines.append(("Lens", lens)) }
        if let w = a.width, let h = a.height { lines.append(("Size", "\(w)x\(h) as displayed, orientation \(a.orientation ?? 1)")) }
        if let d = a.duration { lines.append(("Duration", String(format: "%.2f s", d))) }
        let codecs = [a.videoCodec, a.audioCodec].compactMap { $0 }.joined(separator: " + ")
        if !codecs.isEmpty { lines.append(("Codecs", codecs)) }
        if let loc = a.location {
            var text = String(format: "%.6f, %.6f", loc.latitude, loc.longitude)
            if let alt = loc.altitude { text += String(format: ", %.1f m", alt) }
            lines.append(("Location", text))
        }
        if let place = a.place { lines.append(("Place", place.description)) }
        if let c = a.contentIdentifier { lines.append(("Content ID", c)) }
        if let p = a.pairing { lines.append(("Paired by", "\(p.rule.rawValue) (confidence \(p.confidence))")) }
        if let t = a.stillImageTime { lines.append(("Still at", String(format: "%.3f s into the movie", t))) }
        lines.append(("Imported", a.importedAt))
        if a.favorite { lines.append(("Favorite", "yes")) }
        if !a.albums.isEmpty { lines.append(("Albums", a.albums.joined(separator: ", "))) }
        if !a.keywords.isEmpty { lines.append(("Keywords", a.keywords.joined(separator: ", "))) }
        if let t = a.trashedAt { lines.append(("Trashed", "\(t); in the trash (`camlib restore \(a.id)` brings it back)")) }
        var out = lines.map { "\($0.0.padded(to: 11)) \($0.1)" }.joined(separator: "\n") + "\n"
        out += "Files:\n"
        for r in a.resources {
            var role = r.role.rawValue
            if let of = r.of { role += " of \(of.rawValue)" }
            out += "  \(role.padded(to: 24)) \(r.path)  (\(r.bytes) bytes, \(r.mime))\n"
        }
        if !a.adjustments.isEmpty {
            out += "Edits (oldest first):\n"
            for (i, d) in a.adjustments.enumerated() {
                let mark = d.current ? "current" : "       "
                let what: String
                if d.formatIdentifier == "com.apple.photo" {
                    what = "Apple Photos edit (camlib shows it but cannot re-render it; `camlib show --json` has its data)"
                } else if let recipe = CamlibAdjustment.recipe(formatIdentifier: d.formatIdentifier, formatVersion: d.formatVersion, data: d.data) {
                    what = Self.describe(recipe)
                } else {
                    what = "\(d.data.prefix(60))"
                }
                out += "  \(i + 1). \(mark)  \(d.formatIdentifier) \(d.formatVersion), \(d.createdAt): \(what)\n"
            }
            if !a.adjustments.contains(where: \.current) { out += "  The original is current.\n" }
        }
        if !a.aux.isEmpty {
            out += "Auxiliary images:\n"
            for x in a.aux {
                let size = x.width.flatMap { w in x.height.map { "\(w)x\($0)" } } ?? "?"
                let detail = x.path ?? "not extracted: \(x.problem ?? "unknown reason")"
                out += "  \(x.type.rawValue.padded(to: 24)) \(size) \(x.bitDepth.map { "\($0)-bit" } ?? "")  \(detail)\n"
            }
        }
        return out
    }
}

extension AssetTable {
    /// `String(format: "%.1f", value)` for a pairing confidence (0...1), without
    /// Foundation's formatter: ties to even, as printf rounds an exact half.
    static func oneDecimal(_ value: Double) -> String {
        String((value * 10).rounded(.toNearestOrEven) / 10)
    }
}

extension AssetTable {
    /// A camlib recipe in words: its filter steps, then what it attached.
    /// `comic → vignette:strength=0.4, attached depth (0.5–9 m)`
    static func describe(_ recipe: CamlibRecipe) -> String {
        let steps = recipe.steps.map(\.description).joined(separator: " → ")
        let attached = recipe.attachments.map { a -> String in
            let range = a.zNear.flatMap { near in a.zFar.map { " (\(EditCommand.number(near))–\(EditCommand.number($0)) m)" } } ?? ""
            return a.type.rawValue + range
        }
        let attachments = attached.isEmpty ? "" : "attached " + attached.joined(separator: ", ")
        return [steps, attachments].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
