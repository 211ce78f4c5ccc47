/// A box (atom) of an ISO base media file (HEIF, MP4, QuickTime): its type and where its
/// header and payload lie in the buffer it was read from.
public struct ISOBMFFBox: Sendable, Equatable {
    public let type: String
    /// Offset of the box header.
    public let offset: Int
    public let headerSize: Int
    /// Size including the header.
    public let size: Int

    public var payloadRange: Range<Int> { (offset + headerSize)..<(offset + size) }
    public var end: Int { offset + size }

    /// The boxes that follow each other in `range` of `bytes`.
    ///
    /// A box that claims to extend past `range` is an error when `strict`; otherwise it is
    /// cut off at the end (files are often read only in part).
    public static func boxes(in bytes: [UInt8], range: Range<Int>? = nil, strict: Bool = true) throws -> [ISOBMFFBox] {
        let range = range ?? 0..<bytes.count
        let r = ByteReader(bytes, context: "ISOBMFF")
        var result: [ISOBMFFBox] = []
        var pos = range.lowerBound
        while pos + 8 <= range.upperBound {
            var size = Int(try r.u32(at: pos))
            let type = try r.fourCC(at: pos + 4)
            var header = 8
            if size == 1 {
                guard pos + 16 <= range.upperBound else { throw FormatError("ISOBMFF box '\(type)'", "truncated 64-bit size") }
                let large = try r.u64(at: pos + 8)
                guard large <= UInt64(Int.max) else { throw FormatError("ISOBMFF box '\(type)'", "size \(large) is too large") }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - pos  // to the end of the enclosing range
            }
            guard size >= header else {
                throw FormatError("ISOBMFF box '\(type)' at \(pos)", "size \(size) is smaller than its header")
            }
            if pos + size > range.upperBound {
                if strict { throw FormatError("ISOBMFF box '\(type)' at \(pos)", "size \(size) runs past the end") }
                size = range.upperBound - pos
            }
            result.append(ISOBMFFBox(type: type, offset: pos, headerSize: header, size: size))
            pos += size
        }
        return result
    }
}

/// The `ftyp` box: what a file says it is.
public struct FileTypeBox: Sendable, Equatable {
    public let majorBrand: String
    public let minorVersion: UInt32
    public let compatibleBrands: [String]

    public var allBrands: [String] { [majorBrand] + compatibleBrands }

    /// Reads an `ftyp` box at the start of `bytes`; nil when the file does not start with one.
    public init?(fileStart bytes: [UInt8]) {
        let r = ByteReader(bytes, context: "ftyp")
        guard let size = try? r.u32(at: 0), let type = try? r.fourCC(at: 4), type == "ftyp",
            size >= 16, let major = try? r.fourCC(at: 8), let minor = try? r.u32(at: 12)
        else { return nil }
        majorBrand = major
        minorVersion = minor
        let end = min(Int(size), bytes.count)
        compatibleBrands = stride(from: 16, to: end - 3, by: 4).compactMap { try? r.fourCC(at: $0) }
    }
}
