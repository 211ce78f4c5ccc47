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
