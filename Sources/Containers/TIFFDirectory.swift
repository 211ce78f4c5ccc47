/// One image file directory (IFD) of a TIFF-structured block: EXIF, MakerNotes.
///
/// Reads entries without interpreting tags; offsets are resolved against `base` (the
/// start of the TIFF header for EXIF, the start of the MakerNote for Apple's).
public struct TIFFDirectory: Sendable, Equatable {
    /// A typed tag value.
    public enum Value: Sendable, Equatable {
        case integers([Int64])
        case rationals([Double])
        case string(String)
        case bytes([UInt8])
    }

    public struct Entry: Sendable, Equatable {
        public let tag: UInt16
        public let type: UInt16
        public let count: Int
        public let value: Value
    }

    public let entries: [Entry]
    /// Offset of the next IFD (0 when none).
    public let nextOffset: Int

    public subscript(tag: UInt16) -> Value? {
        entries.first { $0.tag == tag }?.value
    }

    /// Reads the IFD at `offset` of `reader`, whose byte order must already be set.
    /// Value offsets are relative to `base`. Entries of unknown type are kept as bytes
    /// when they fit inline and skipped otherwise; an entry pointing past the end is
    /// skipped (cameras write bad offsets; one bad tag must not lose the others).
    public init(reader: ByteReader, offset: Int, base: Int = 0, maxEntries: Int = 1000) throws {
        let n = Int(try reader.u16(at: offset))
        guard n <= maxEntries else {
            throw FormatError(reader.context, "IFD at \(offset) claims \(n) entries")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(n)
        for i in 0..<n {
            let e = offset + 2 + i * 12
            let tag = try reader.u16(at: e)
            let type = try reader.u16(at: e + 2)
            let count64 = try reader.u32(at: e + 4)
            guard let size = Self.size(ofType: type) else { continue }
            let total = Int(count64) &* size
            guard count64 < 1 << 24, total >= 0 else { continue }
            let dataOffset = total <= 4 ? e + 8 : base + Int(try reader.u32(at: e + 8))
            guard let raw = try? reader.slice(at: dataOffset, count: total) else { continue }
            let value = Self.decode(type: type, count: Int(count64), raw: Array(raw), order: reader.order)
            entries.append(Entry(tag: tag, type: type, count: Int(count64), value: value))
        }
        self.entries = entries
        self.nextOffset = Int((try? reader.u32(at: offset + 2 + n * 12)) ?? 0)
    }

    static func size(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11: 4  // LONG, SLONG, FLOAT
        case 5, 10, 12, 16, 17: 8  // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8
        default: nil
        }
    }

    static func decode(type: UInt16, count: Int, raw: [UInt8], order: ByteOrder) -> Value {
        let r = ByteReader(raw, order: order, context: "TIFF value")
        func ints(_ size: Int, _ read: (Int) throws -> Int64) -> Value {
            .integers((0..<count).compactMap { try? read($0 * size) })
        }
        switch type {
        case 2:
            let text = raw.prefix { $0 != 0 }
            return .string(String(decoding: text, as: UTF8.self))
        case 3: return ints(2) { Int64(try r.u16(at: $0)) }
        case 8: return ints(2) { Int64(Int16(bitPattern: try r.u16(at: $0))) }
        case 4: return ints(4) { Int64(try r.u32(at: $0)) }
        case 9: return ints(4) { Int64(Int32(bitPattern: try r.u32(at: $0))) }
        case 16: return ints(8) { Int64(bitPattern: try r.u64(at: $0)) }
        case 17: return ints(8) { Int64(bitPattern: try r.u64(at: $0)) }
        case 5, 10:
            return .rationals((0..<count).compactMap { i in
                guard let n = try? r.u32(at: i * 8), let d = try? r.u32(at: i * 8 + 4), d != 0 else { return nil }
                return type == 5 ? Double(n) / Double(d) : Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d))
            })
        default: return .bytes(raw)
        }
    }
}

extension TIFFDirectory.Value {
    public var int: Int64? {
        if case .integers(let v) = self { return v.first }
        return nil
    }
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
