import Containers
import Foundation

extension AssetDescription {
    /// The asset as the JSON contract prints it: byte for byte what `JSONEncoder` with
    /// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` gives for it (a test holds
    /// the two together), written directly. Codable's dynamic dispatch made encoding a
    /// page of 50 assets cost more than reading them from the catalog.
    public var prettyJSON: [UInt8] {
        var json = PrettyJSON()
        json.write(self)
        return json.bytes
    }

    /// Assets as the elements of a JSON array, each line indented as inside `[` `]`,
    /// joined by `,` and a line break: what goes between an array's brackets.
    public static func prettyJSONElements(_ assets: [AssetDescription]) -> [UInt8] {
        // About 3.5 kB an asset with its files, aux images and edits.
        var json = PrettyJSON(depth: 1, capacity: 3584 * assets.count)
        for (i, asset) in assets.enumerated() {
            if i > 0 { json.bytes.append(contentsOf: ",\n".utf8) }
            json.indent()
            json.write(asset)
        }
        return json.bytes
    }
}

/// A pretty-printing JSON writer that matches Foundation's `JSONEncoder` output: two-space
/// indents, `"key" : value`, keys in the order the caller gives them (sorted), empty
/// containers as `[` blank line `]`, numbers as Swift prints them without a trailing `.0`,
/// strings escaped as JSONEncoder escapes them (slashes left alone).
struct PrettyJSON {
    var bytes: [UInt8] = []
    private var depth: Int
    /// Per open container: whether it has an element yet.
    private var filled: [Bool] = []

    init(depth: Int = 0, capacity: Int = 4096) {
        self.depth = depth
        bytes.reserveCapacity(capacity)
    }

    mutating func indent() {
        var n = 2 * depth
        while n > 0 {
            let run = min(n, Self.spaces.count)
            bytes.append(contentsOf: Self.spaces[0..<run])
            n -= run
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 32)

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        depth += 1
        filled.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        // An empty container: its brackets around a blank line.
        bytes.append(UInt8(ascii: "\n"))
        if filled.removeLast() { indent() } else { bytes.append(UInt8(ascii: "\n")); indent() }
        bytes.append(bracket)
    }

    /// Starts the next element of the open container.
    private mutating func element() {
        if filled[filled.count - 1] { bytes.append(UInt8(ascii: ",")) }
        filled[filled.count - 1] = true
        bytes.append(UInt8(ascii: "\n"))
        indent()
    }

    mutating func object(_ body: (inout PrettyJSON) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array<T>(_ items: [T], _ write: (inout PrettyJSON, T) -> Void) {
        open(UInt8(ascii: "["))
        for item in items {
            element()
            write(&self, item)
        }
        close(UInt8(ascii: "]"))
    }

    /// `"name" : ` inside an object, after the previous member's comma: a name from data,
    /// escaped as needed.
    mutating func key(escaping name: String) {
        element()
        string(name)
        bytes.append(contentsOf: " : ".utf8)
    }

    /// A key of the contract: plain ASCII, copied as it is.
    mutating func key(_ name: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\" : ".utf8)
    }

    mutating func null() { bytes.append(contentsOf: "null".utf8) }

    mutating func value(_ s: String?) { if let s { string(s) } else { null() } }
    mutating func value(_ n: Int?) { if let n { integer(Int64(n)) } else { null() } }
    mutating func value(_ n: Int64?) { if let n { integer(n) } else { null() } }

    /// Decimal digits, as `String(n)` gives them, without making a String.
    private mutating func integer(_ n: Int64) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[end...]))
        }
    }
    mutating func value(_ b: Bool) { bytes.append(contentsOf: (b ? "true" : "false").utf8) }

    mutating func value(_ d: Double?) {
        guard let d else { return null() }
        let text = d.description
        bytes.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
    }

    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        // Over the string's contiguous bytes, cheaper than walking its UTF8View. Most
        // strings need no escaping: copied whole.
        s.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 { escape(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        let backslash = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), backslash: bytes.append(backslash); bytes.append(byte)
        case 0x0A: bytes.append(backslash); bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(backslash); bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(backslash); bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(backslash); bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(backslash); bytes.append(UInt8(ascii: "f"))
        case 0..<0x20:
            bytes.append(contentsOf: "\\u00".utf8)
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0xF)])
        default: bytes.append(byte)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Compact JSON (as JSONEncoder wrote it, without pretty-printing) re-indented in place:
    /// strings copied as they are, structure laid out as this writer lays it out.
    mutating func reindent(compact json: String) {
        var json = json
        json.withUTF8 { utf8 in reindent(compact: utf8) }
    }

    private mutating func reindent(compact utf8: UnsafeBufferPointer<UInt8>) {
        var pendingOpen = false  // a container just opened: its first element or its end decides the layout
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if pendingOpen { element() }
                open(byte)
                pendingOpen = true
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                pendingOpen = false
                close(byte)
                i += 1
            case UInt8(ascii: ","):
                pendingOpen = true
                i += 1
            case UInt8(ascii: ":"):
                bytes.append(contentsOf: " : ".utf8)
                i += 1
            default:
                if pendingOpen {
                    element()
                    pendingOpen = false
                }
                // A scalar or a whole string, copied in one go: up to the next structural
                // byte outside a string.
                var end = i
                var inString = false
                var escaped = false
                scan: while end < utf8.count {
                    let b = utf8[end]
                    if inString {
                        if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                    } else {
                        switch b {
                        case UInt8(ascii: "\""): inString = true
                        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"): break scan
                        default: break
                        }
                    }
                    end += 1
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[i..<end]))
                i = end
            }
        }
    }

    // MARK: The contract's types, keys in sorted order

    mutating func write(_ a: AssetDescription) {
        object { j in
            j.key("adjustments")
            j.array(a.adjustments) { j, d in
                j.object { j in
                    j.key("createdAt"); j.value(d.createdAt)
                    j.key("current"); j.value(d.current)
                    j.key("data"); j.value(d.data)
                    j.key("formatIdentifier"); j.value(d.formatIdentifier)
                    j.key("formatVersion"); j.value(d.formatVersion)
                }
            }
            j.key("albums")
            j.array(a.albums) { j, name in j.value(name) }
            j.key("audioCodec"); j.value(a.audioCodec)
            j.key("aux")
            j.array(a.aux) { j, x in j.write(x) }
            j.key("capturedAt"); j.value(a.capturedAt)
            j.key("contentIdentifier"); j.value(a.contentIdentifier)
            if let cursor = a.cursor { j.key("cursor"); j.value(cursor) }
            j.key("duration"); j.value(a.duration)
            j.key("favorite"); j.value(a.favorite)
            j.key("height"); j.value(a.height)
            j.key("id"); j.value(a.id)
            j.key("importedAt"); j.value(a.importedAt)
            j.key("keywords")
            j.array(a.keywords) { j, name in j.value(name) }
            j.key("kind"); j.value(a.kind.rawValue)
            j.key("lensModel"); j.value(a.lensModel)
            j.key("location")
            if let l = a.location {
                j.object { j in
                    if let altitude = l.altitude { j.key("altitude"); j.value(altitude) }
                    j.key("latitude"); j.value(l.latitude)
                    j.key("longitude"); j.value(l.longitude)
                }
            } else {
                j.null()
            }
            j.key("make"); j.value(a.make)
            j.key("model"); j.value(a.model)
            j.key("orientation"); j.value(a.orientation)
            j.key("pairing")
            if let p = a.pairing {
                j.object { j in
                    j.key("confidence"); j.value(p.confidence)
                    j.key("rule"); j.value(p.rule.rawValue)
                }
            } else {
                j.null()
            }
            j.key("place")
            if let p = a.place {
                j.object { j in
                    j.key("city"); j.value(p.city)
                    j.key("country"); j.value(p.country)
                    j.key("countryCode"); j.value(p.countryCode)
                    j.key("region"); j.value(p.region)
                }
            } else {
                j.null()
            }
            j.key("resources")
            j.array(a.resources) { j, r in
                j.object { j in
                    j.key("bytes"); j.value(r.bytes)
                    if let crc = r.crc32 { j.key("crc32"); j.value(Int64(crc)) }
                    j.key("mime"); j.value(r.mime)
                    if let of = r.of { j.key("of"); j.value(of.rawValue) }
                    if let name = r.originalName { j.key("originalName"); j.value(name) }
                    j.key("path"); j.value(r.path)
                    j.key("role"); j.value(r.role.rawValue)
                    j.key("sha256"); j.value(r.sha256)
                }
            }
            j.key("stillImageTime"); j.value(a.stillImageTime)
            if let trashedAt = a.trashedAt { j.key("trashedAt"); j.value(trashedAt) }
            j.key("videoCodec"); j.value(a.videoCodec)
            j.key("width"); j.value(a.width)
        }
    }

    mutating func write(_ x: AssetDescription.Aux) {
        object { j in
            j.key("bitDepth"); j.value(x.bitDepth)
            j.key("channels"); j.value(x.channels)
            j.key("encoding")
            switch x.storedEncoding {
            case .json(let json): j.reindent(compact: json)
            case .decoded(let encoding?): j.write(encoding)
            case .decoded(nil): j.null()
            }
            j.key("height"); j.value(x.height)
            j.key("path"); j.value(x.path)
            j.key("problem"); j.value(x.problem)
            j.key("source"); j.value(x.source)
            j.key("type"); j.value(x.type.rawValue)
            j.key("urn"); j.value(x.urn)
            j.key("width"); j.value(x.width)
        }
    }

    mutating func write(_ e: AuxiliaryEncoding) {
        object { j in
            if let v = e.far { j.key("far"); j.value(v) }
            if let v = e.floatMax { j.key("floatMax"); j.value(v) }
            if let v = e.floatMin { j.key("floatMin"); j.value(v) }
            if let v = e.format { j.key("format"); j.value(v) }
            if let v = e.intMax { j.key("intMax"); j.value(v) }
            if let v = e.intMin { j.key("intMin"); j.value(v) }
            if let v = e.meaning { j.key("meaning"); j.value(v) }
            if let v = e.near { j.key("near"); j.value(v) }
            j.key("properties")
            j.object { j in
                for key in e.properties.keys.sorted() {
                    j.key(escaping: key)
                    j.value(e.properties[key])
                }
            }
            if let v = e.toMetres { j.key("toMetres"); j.value(v) }
            if let v = e.units { j.key("units"); j.value(v) }
        }
    }
}
