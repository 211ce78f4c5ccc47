/// One box of an ISO base media file (MP4, QuickTime, HEIF): its type and where its
/// header and payload are in the bytes it was read from.
public struct ISOBox: Sendable, Equatable {
    public let type: String
    /// Offset of the box's first byte (its size field).
    public let offset: Int
    public let headerSize: Int
    /// The whole box, header included.
    public let size: Int

    public var end: Int { offset + size }
    public var payload: Range<Int> { (offset + headerSize)..<end }

    /// Reads the box header at `offset`, the box ending no later than `limit`. Nil when
    /// the bytes there are not a plausible box header: a type of non-printable bytes, a
    /// size smaller than the header or running past `limit`. A size of 0 means "to
    /// `limit`", as the format allows for the last box.
    public static func header(in bytes: [UInt8], at offset: Int, limit: Int) -> ISOBox? {
        let limit = min(limit, bytes.count)
        guard offset >= 0, offset + 8 <= limit else { return nil }
        let size32 = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        let typeBytes = bytes[(offset + 4)..<(offset + 8)]
        guard typeBytes.allSatisfy(isTypeCharacter) else { return nil }
        let type = String(decoding: typeBytes, as: UTF8.self)
        var header = 8
        var size = size32
        if size32 == 1 {
            guard offset + 16 <= limit else { return nil }
            var large: UInt64 = 0
            for i in 0..<8 { large = large << 8 | UInt64(bytes[offset + 8 + i]) }
            guard large <= UInt64(Int.max) else { return nil }
            header = 16
            size = Int(large)
        } else if size32 == 0 {
            size = limit - offset
        }
        guard size >= header, size <= limit - offset else { return nil }
        return ISOBox(type: type, offset: offset, headerSize: header, size: size)
    }

    /// Box types are four printable ASCII characters (QuickTime also uses ©, 0xA9).
    static func isTypeCharacter(_ b: UInt8) -> Bool {
        (0x20...0x7E).contains(b) || b == 0xA9
    }

    /// The run of consecutive boxes from `start`, stopping at `limit` or at the first
    /// bytes that are not a box header.
    public static func sequence(in bytes: [UInt8], from start: Int, limit: Int) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var pos = start
        while let box = header(in: bytes, at: pos, limit: limit) {
            boxes.append(box)
            pos = box.end
        }
        return boxes
    }

    /// The children of a container box (`moov`, `trak`, `meta` after its 4-byte
    /// version/flags, …), `skip` bytes into its payload.
    public func children(in bytes: [UInt8], skip: Int = 0) -> [ISOBox] {
        Self.sequence(in: bytes, from: payload.lowerBound + skip, limit: end)
    }
}
