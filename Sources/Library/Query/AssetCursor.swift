import Foundation

/// A place in a listing of assets: just after one asset, in one order. Each asset of
/// `camlib query --json` carries its cursor; `--after CURSOR` lists what follows it. A
/// cursor holds the asset's sort key and id, not a row number, so pages stay right while
/// other assets are imported: every asset that was there is listed exactly once.
///
/// Written as text: base64url of a small JSON object, `{"id":…,"key":…,"order":…,"reverse":…}`.
public struct AssetCursor: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The asset's value of the sort key: a capture moment (Julian day), an import time
    /// or a lower-case name; nil when the asset has none (undated, unnamed) and when the
    /// order is by id.
    public enum Key: Sendable, Equatable, Codable {
        case number(Double)
        case text(String)

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .text(try c.decode(String.self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .number(let n): try c.encode(n)
            case .text(let t): try c.encode(t)
            }
        }
    }

    public var sort: AssetQuery.Sort
    public var descending: Bool
    public var key: Key?
    public var id: Int64

    public init(sort: AssetQuery.Sort, descending: Bool, key: Key?, id: Int64) {
        (self.sort, self.descending, self.key, self.id) = (sort, descending, key, id)
    }

    enum CodingKeys: String, CodingKey {
        case sort = "order", descending = "reverse", key, id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sort.rawValue, forKey: .sort)
        try c.encode(descending, forKey: .descending)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encode(id, forKey: .id)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let sort = AssetQuery.Sort(rawValue: try c.decode(String.self, forKey: .sort)) else {
            throw DecodingError.dataCorruptedError(forKey: .sort, in: c, debugDescription: "unknown order")
        }
        self.sort = sort
        descending = try c.decode(Bool.self, forKey: .descending)
        key = try c.decodeIfPresent(Key.self, forKey: .key)
        id = try c.decode(Int64.self, forKey: .id)
    }

    /// The cursor's text form: the JSON JSONEncoder writes for it with sorted keys,
    /// written directly (one per listed asset; the encoder cost more than the listing).
    public var description: String {
        var json = PrettyJSON(capacity: 128)
        json.bytes.append(contentsOf: #"{"id":"#.utf8)
        json.value(id)
        if let key {
            json.bytes.append(contentsOf: #","key":"#.utf8)
            switch key {
            case .number(let n): json.value(n)
            case .text(let t): json.string(t)
            }
        }
        json.bytes.append(contentsOf: #","order":"#.utf8)
        json.string(sort.rawValue)
        json.bytes.append(contentsOf: #","reverse":"#.utf8)
        json.value(descending)
        json.bytes.append(UInt8(ascii: "}"))
        return Self.base64URL(json.bytes)
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// base64url (RFC 4648 §5), unpadded, byte by byte (Foundation's encoder and a pass
    /// over its characters cost 70 k instructions a cursor, one per listed asset).
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = base64URLAlphabet
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            let characters = min(bytes.count - i, 3) + 1
            for k in 0..<characters { out.append(alphabet[Int(group >> (18 - 6 * UInt32(k)) & 0x3F)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads a cursor's text form; nil when `text` is not one.
    public init?(_ text: String) {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(AssetCursor.self, from: data) else {
            return nil
        }
        self = cursor
    }
}
