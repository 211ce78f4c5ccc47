import Containers
import Foundation

/// `camlib export --folder '{created:%Y}/{created:%m}' --filename '{created:%Y%m%d}_{name}'`:
/// where an asset's files go and what they are called, from its facts, as osxphotos'
/// templates do.
///
/// Fields: `{name}` (the original's name without extension), `{id}`, `{kind}`,
/// `{album}` (the first of its albums by name, else `no album`), `{created}` and
/// `{created:FORMAT}` (the capture time as the camera's clock showed it; FORMAT takes
/// `%Y %y %m %d %H %M %S` and text; `undated` without one). A value never adds a folder:
/// `/` in it becomes `_`, and a part that would be `.` or `..` becomes `_`.
public struct ExportTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case text(String)
        case field(String, format: String?)
    }

    let parts: [Part]
    public static let fields = ["name", "id", "kind", "album", "created"]

    /// Reads `text`; an unknown field or a brace left open is an error saying so.
    public init(_ text: String) throws {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw ExportTemplateError("a \"{\" without its \"}\" in \(text)") }
            let inside = rest[rest.index(after: open)..<close]
            let name = inside.prefix { $0 != ":" }
            let format = inside.contains(":") ? String(inside.drop { $0 != ":" }.dropFirst()) : nil
            guard Self.fields.contains(String(name)) else {
                throw ExportTemplateError("{\(inside)} in \(text): no such field; use \(Self.fields.map { "{\($0)}" }.joined(separator: ", "))")
            }
            guard format == nil || name == "created" else { throw ExportTemplateError("{\(inside)}: only {created} takes a format") }
            parts.append(.field(String(name), format: format))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The template filled in for `asset`, whose original is named `name` (no extension).
    func render(_ asset: AssetDescription, name: String) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let field, let format):
                let value: String
                switch field {
                case "name": value = name
                case "id": value = String(asset.id)
                case "kind": value = asset.kind.rawValue
                case "album": value = asset.albums.first ?? "no album"
                default: value = asset.capturedAt.flatMap(CaptureTime.init(iso8601:)).map { Self.format($0, format ?? "%Y-%m-%d") } ?? "undated"
                }
                out += Self.safe(value)
            }
        }
        return out
    }

    /// A value as one name: no `/`, not `.` or `..`, no control characters.
    static func safe(_ value: String) -> String {
        let cleaned = String(value.unicodeScalars.map { $0 == "/" || $0.properties.generalCategory == .control ? "_" : Character($0) })
        return cleaned == "." || cleaned == ".." || cleaned.isEmpty ? "_" : cleaned
    }

    static func format(_ t: CaptureTime, _ format: String) -> String {
        func pad(_ v: Int, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        var out = ""
        var percent = false
        for c in format {
            guard percent else {
                if c == "%" { percent = true } else { out.append(c) }
                continue
            }
            percent = false
            switch c {
            case "Y": out += pad(t.year, 4)
            case "y": out += pad(t.year % 100, 2)
            case "m": out += pad(t.month, 2)
            case "d": out += pad(t.day, 2)
            case "H": out += pad(t.hour, 2)
            case "M": out += pad(t.minute, 2)
            case "S": out += pad(t.second, 2)
            case "%": out += "%"
            default: out += "%\(c)"
            }
        }
        return out
    }
}

public struct ExportTemplateError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}
