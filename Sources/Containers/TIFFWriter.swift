/// Writes a little-endian TIFF structure of the kind Exif uses: IFD0, optionally an Exif
/// sub-IFD (pointed to by tag 0x8769) and IFD1 with a JPEG thumbnail. Values longer than
/// four bytes go after each IFD, word-aligned, as TIFF 6.0 lays them out.
///
/// camlib writes its own rather than through libexif because the Apple MakerNote a Live
/// Photo needs is itself an IFD that libexif cannot build; one writer serves both.
public struct TIFFWriter {
    public enum Value: Sendable, Equatable {
        case ascii(String)
        case short([UInt16])
        case long([UInt32])
        case rational([(UInt32, UInt32)])
        case signedLong([Int32])
        case signedRational([(Int32, Int32)])
        case undefined([UInt8])

        public static func == (a: Value, b: Value) -> Bool { a.typeAndBytes == b.typeAndBytes }

        /// TIFF type code, count, and the value's bytes (little-endian).
        var typeAndBytes: (UInt16, Int, [UInt8]) { encoded(bigEndian: false) }

        func encoded(bigEndian: Bool) -> (UInt16, Int, [UInt8]) {
            let le16 = bigEndian ? be16 : Containers.le16
            let le32 = bigEndian ? be32 : Containers.le32
            switch self {
            case .ascii(let s):
                let bytes = Array(s.utf8) + [0]
                return (2, bytes.count, bytes)
            case .short(let v):
                return (3, v.count, v.flatMap { le16($0) })
            case .long(let v):
                return (4, v.count, v.flatMap { le32($0) })
            case .rational(let v):
                return (5, v.count, v.flatMap { le32($0.0) + le32($0.1) })
            case .signedLong(let v):
                return (9, v.count, v.flatMap { le32(UInt32(bitPattern: $0)) })
            case .signedRational(let v):
                return (10, v.count, v.flatMap { le32(UInt32(bitPattern: $0.0)) + le32(UInt32(bitPattern: $0.1)) })
            case .undefined(let b):
                return (7, b.count, b)
            }
        }
    }

    public typealias Entry = (tag: UInt16, value: Value)

    public var ifd0: [Entry] = []
    public var exif: [Entry] = []
    /// A baseline JPEG for IFD1 (JPEG files only; keep it small: APP1 holds 64 KB).
    public var thumbnailJPEG: [UInt8]?

    public init() {}

    /// The TIFF bytes ("II*\0" …), as they follow "Exif\0\0" in a JPEG's APP1 or the
    /// 4-byte offset in a HEIF Exif item.
    public func bytes() -> [UInt8] {
        let exifPointerTag: UInt16 = 0x8769
        var zeroth = ifd0.filter { $0.tag != exifPointerTag }
        if !exif.isEmpty { zeroth.append((exifPointerTag, .long([0]))) }
        var first: [Entry] = []
        if let thumb = thumbnailJPEG {
            first = [
                (0x0103, .short([6])), (0x011A, .rational([(72, 1)])), (0x011B, .rational([(72, 1)])), (0x0128, .short([2])),
                (0x0201, .long([0])), (0x0202, .long([UInt32(thumb.count)])),
            ]
        }
        let offset0 = 8
        let offsetExif = offset0 + Self.size(of: zeroth)
        let offset1 = offsetExif + (exif.isEmpty ? 0 : Self.size(of: exif))
        let offsetThumb = offset1 + (first.isEmpty ? 0 : Self.size(of: first))
        if !exif.isEmpty { zeroth = zeroth.map { $0.tag == exifPointerTag ? ($0.tag, .long([UInt32(offsetExif)])) : $0 } }
        first = first.map { $0.tag == 0x0201 ? ($0.tag, .long([UInt32(offsetThumb)])) : $0 }

        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(UInt32(offset0))
        out += Self.serialize(zeroth, at: offset0, next: first.isEmpty ? 0 : offset1)
        if !exif.isEmpty { out += Self.serialize(exif, at: offsetExif, next: 0) }
        if !first.isEmpty {
            out += Self.serialize(first, at: offset1, next: 0)
            out += thumbnailJPEG ?? []
        }
        return out
    }

    /// An IFD on its own (entries, next-IFD 0, then its data), placed at `offset` of the
    /// structure it will live in: how MakerNotes are written.
    public static func ifd(_ entries: [Entry], at offset: Int, bigEndian: Bool = false) -> [UInt8] {
        serialize(entries, at: offset, next: 0, bigEndian: bigEndian)
    }

    static func size(of entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { acc, e in
            let n = e.value.typeAndBytes.2.count
            return acc + (n > 4 ? (n + 1) & ~1 : 0)
        }
    }

    static func serialize(_ entries: [Entry], at offset: Int, next: Int, bigEndian: Bool = false) -> [UInt8] {
        let le16 = bigEndian ? be16 : Containers.le16
        let le32 = bigEndian ? be32 : Containers.le32
        let sorted = entries.sorted { $0.tag < $1.tag }
        var head: [UInt8] = le16(UInt16(sorted.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * sorted.count + 4
        for e in sorted {
            let (type, count, bytes) = e.value.encoded(bigEndian: bigEndian)
            head += le16(e.tag) + le16(type) + le32(UInt32(count))
            if bytes.count <= 4 {
                head += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                head += le32(UInt32(dataStart + data.count))
                data += bytes
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        head += le32(UInt32(next))
        return head + data
    }
}

@inline(__always) func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
@inline(__always) func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
@inline(__always) func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
@inline(__always) func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
