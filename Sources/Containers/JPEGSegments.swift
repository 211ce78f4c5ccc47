/// The marker segments of a JPEG file up to its first scan: where EXIF, XMP and MPF live,
/// and the frame header with the stored size.
public struct JPEGSegments: Sendable {
    /// One marker segment; `payload` excludes the marker and the length field.
    public struct Segment: Sendable {
        public let marker: UInt8
        /// Offset of the 0xFF byte of the marker in the file.
        public let offset: Int
        public let payload: ArraySlice<UInt8>
    }

    /// Start-of-frame facts.
    public struct Frame: Sendable, Equatable {
        public let width: Int
        public let height: Int
        public let components: Int
        public let precision: Int
        public let progressive: Bool
    }

    public let segments: [Segment]
    public let frame: Frame?

    /// The APP1 payload after its `Exif\0\0` header: a TIFF structure.
    public var exifTIFF: ArraySlice<UInt8>? {
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        for s in segments where s.marker == 0xE1 && s.payload.starts(with: header) {
            return s.payload.dropFirst(header.count)
        }
        return nil
    }

    /// The main XMP packet (APP1 `http://ns.adobe.com/xap/1.0/\0`).
    public var xmpPacket: ArraySlice<UInt8>? {
        let header = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        for s in segments where s.marker == 0xE1 && s.payload.starts(with: header) {
            return s.payload.dropFirst(header.count)
        }
        return nil
    }

    /// Extended XMP (XMP spec part 3, 1.1.3.1): a packet too large for one segment, split
    /// over APP1 `http://ns.adobe.com/xmp/extension/\0` segments, each with the packet's
    /// GUID (the MD5 the main packet names in `xmpNote:HasExtendedXMP`), its full length
    /// and the chunk's offset. Nil when no chunk carries `guid` or the chunks leave a gap.
    public func extendedXMP(guid: String) -> [UInt8]? {
        let header = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
        var total: Int?
        var chunks: [(offset: Int, data: ArraySlice<UInt8>)] = []
        for s in segments where s.marker == 0xE1 && s.payload.starts(with: header) {
            let body = s.payload.dropFirst(header.count)
            guard body.count >= 40, String(decoding: body.prefix(32), as: UTF8.self) == guid else { continue }
            let r = ByteReader(Array(body.dropFirst(32).prefix(8)), context: "JPEG extended XMP")
            guard let length = try? r.u32(at: 0), let offset = try? r.u32(at: 4) else { continue }
            total = Int(length)
            chunks.append((Int(offset), body.dropFirst(40)))
        }
        guard let total, total > 0, total <= 64 << 20 else { return nil }
        var packet = [UInt8](repeating: 0, count: total)
        var covered = 0
        for chunk in chunks.sorted(by: { $0.offset < $1.offset }) {
            guard chunk.offset <= covered, chunk.offset + chunk.data.count <= total else { return nil }
            packet.replaceSubrange(chunk.offset..<chunk.offset + chunk.data.count, with: chunk.data)
            covered = max(covered, chunk.offset + chunk.data.count)
        }
        return covered == total ? packet : nil
    }

    /// The main XMP packet merged with its Extended XMP, if any. Nil when there is no XMP;
    /// throws when it is not well-formed.
    public func xmp() throws -> XMPPacket? {
        guard let main = xmpPacket else { return nil }
        var packet = try XMPPacket(parsing: main)
        if let guid = packet.value(XMPNamespace.xmpNote, "HasExtendedXMP"), let extended = extendedXMP(guid: guid) {
            packet.merge(try XMPPacket(parsing: extended))
        }
        return packet
    }

    /// The APP2 `MPF\0` segment (CIPA DC-007 Multi-Picture Format).
    public var mpfSegment: Segment? {
        segments.first { $0.marker == 0xE2 && $0.payload.starts(with: Array("MPF".utf8) + [0]) }
    }

    /// Parses the segments of `bytes`, which must start with SOI.
    ///
    /// Stops at the first SOS (entropy-coded data follows) or EOI. A segment whose length
    /// runs past the end of the data is an error, as is a missing SOI.
    public init(parsing bytes: [UInt8]) throws {
        let r = ByteReader(bytes, context: "JPEG")
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw FormatError("JPEG", "no SOI marker at the start")
        }
        var segments: [Segment] = []
        var frame: Frame?
        var pos = 2
        scan: while pos < bytes.count {
            guard bytes[pos] == 0xFF else {
                throw FormatError("JPEG", "expected a marker at offset \(pos), found \(hex(bytes[pos]))")
            }
            // Fill bytes (0xFF) may precede a marker.
            var m = pos + 1
            while m < bytes.count && bytes[m] == 0xFF { m += 1 }
            guard m < bytes.count else { break }
            let marker = bytes[m]
            let markerOffset = m - 1
            pos = m + 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue  // standalone markers
            case 0xD9, 0xDA:
                break scan  // EOI, or SOS: image data follows
            default:
                let length = Int(try r.u16(at: pos))
                guard length >= 2 else {
                    throw FormatError("JPEG", "segment \(hex(0xFF, marker)) at offset \(markerOffset) has length \(length)")
                }
                guard pos + length <= bytes.count else {
                    throw FormatError("JPEG", "segment \(hex(0xFF, marker)) at offset \(markerOffset) runs past the end of the file")
                }
                let payload = bytes[(pos + 2)..<(pos + length)]
                segments.append(Segment(marker: marker, offset: markerOffset, payload: payload))
                if frame == nil, Self.isStartOfFrame(marker) {
                    let p = ByteReader(Array(payload), context: "JPEG frame header")
                    frame = Frame(
                        width: Int(try p.u16(at: 3)), height: Int(try p.u16(at: 1)),
                        components: Int(try p.u8(at: 5)), precision: Int(try p.u8(at: 0)),
                        progressive: marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE)
                }
                pos += length
            }
        }
        self.segments = segments
        self.frame = frame
    }

    /// The offset just past the EOI marker of the image that starts at `start` (an SOI):
    /// where a JPEG's own bytes end and anything appended (an MPF image, a Motion Photo's
    /// movie) begins. Walks marker segments and skips entropy-coded data (stuffed 0xFF00
    /// bytes and restart markers). Nil when the data ends before an EOI.
    public static func endOfImage(in bytes: [UInt8], start: Int = 0) -> Int? {
        guard start >= 0, start + 2 <= bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { return nil }
        var pos = start + 2
        var inScan = false
        while pos + 1 < bytes.count {
            guard bytes[pos] == 0xFF else {
                guard inScan else { return nil }
                pos += 1
                continue
            }
            let marker = bytes[pos + 1]
            switch marker {
            case 0x00, 0xFF, 0xD0...0xD7:
                pos += marker == 0xFF ? 1 : 2  // stuffed byte, fill byte, restart marker
            case 0xD9:
                return pos + 2
            case 0x01, 0xD8:
                pos += 2
            default:
                guard pos + 4 <= bytes.count else { return nil }
                let length = Int(bytes[pos + 2]) << 8 | Int(bytes[pos + 3])
                guard length >= 2 else { return nil }
                pos += 2 + length
                inScan = marker == 0xDA
            }
        }
        return nil
    }

    /// SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}

/// "0xFFE1" for the bytes FF E1.
func hex(_ bytes: UInt8...) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}
