/// The Multi-Picture Format index (CIPA DC-007) of a JPEG: the other JPEG images appended
/// after the primary one (iPhone Portrait disparity and mattes, Ultra HDR gain maps,
/// large previews), with where each one is.
///
/// The APP2 segment holds `MPF\0` and then a TIFF structure whose MP Index IFD lists one
/// 16-byte MP Entry per image: attribute, size, and offset counted from the TIFF header
/// (0 for the primary image, which starts the file).
public struct MPFIndex: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The 32-bit Individual Image Attribute: flags in the top bits, the type in the low 24.
        public let attribute: UInt32
        public let size: Int
        /// Absolute offset in the file; 0 for the primary image.
        public let offset: Int

        /// MP Type: 0x030000 baseline primary, 0x010001/0x010002 large thumbnails,
        /// 0x020001 panorama, 0x020002 disparity, 0x020003 multi-angle; 0 undefined.
        public var type: UInt32 { attribute & 0x00FF_FFFF }
        public var isPrimary: Bool { offset == 0 }
    }

    public let entries: [Entry]
    /// Where the MP Entry table is, counted from the start of the segment's payload
    /// (after the marker and length), and its byte order: enough to rewrite the entries'
    /// sizes and offsets in place when the images move.
    public let entryTablePayloadOffset: Int
    public let byteOrder: ByteOrder

    /// Parses the `MPF\0` APP2 segment of a JPEG.
    public init(segment: JPEGSegments.Segment) throws {
        let payload = Array(segment.payload)
        guard payload.starts(with: Array("MPF".utf8) + [0]) else { throw FormatError("MPF", "not an MPF segment") }
        let tiff = Array(payload.dropFirst(4))
        // The TIFF header sits after the marker (2), the length (2) and "MPF\0" (4).
        let base = segment.offset + 8
        var r = ByteReader(tiff, context: "MPF index")
        switch (try r.u8(at: 0), try r.u8(at: 1)) {
        case (0x49, 0x49): r.order = .littleEndian
        case (0x4D, 0x4D): r.order = .bigEndian
        default: throw FormatError("MPF index", "no TIFF byte-order mark")
        }
        let ifdOffset = Int(try r.u32(at: 4))
        let ifd = try TIFFDirectory(reader: r, offset: ifdOffset)
        guard case .bytes(let raw)? = ifd[0xB002] else {
            throw FormatError("MPF index", "no MP Entry tag (0xB002)")
        }
        guard raw.count % 16 == 0 else {
            throw FormatError("MPF index", "MP Entry is \(raw.count) bytes, not a multiple of 16")
        }
        var er = ByteReader(raw, context: "MPF MP Entry")
        er.order = r.order
        var entries: [Entry] = []
        for i in 0..<(raw.count / 16) {
            let attribute = try er.u32(at: i * 16)
            let size = Int(try er.u32(at: i * 16 + 4))
            let relative = Int(try er.u32(at: i * 16 + 8))
            entries.append(Entry(attribute: attribute, size: size, offset: relative == 0 ? 0 : base + relative))
        }
        self.entries = entries
        // The 0xB002 entry's value offset, relative to the TIFF header (payload + 4).
        var table: Int?
        let count = Int(try r.u16(at: ifdOffset))
        for i in 0..<count where try r.u16(at: ifdOffset + 2 + i * 12) == 0xB002 {
            table = Int(try r.u32(at: ifdOffset + 2 + i * 12 + 8))
        }
        guard let table else { throw FormatError("MPF index", "no MP Entry tag (0xB002)") }
        entryTablePayloadOffset = 4 + table
        byteOrder = r.order
    }

    /// The segment payload with each entry's size and offset replaced: `images[i]` is the
    /// (start in the new file, size) of entry `i`, and `tiffHeader` is where this
    /// segment's TIFF header will be in the new file. The first image keeps offset 0.
    public func rewritten(payload: ArraySlice<UInt8>, images: [(start: Int, size: Int)], tiffHeader: Int) throws -> [UInt8] {
        guard images.count == entries.count else { throw FormatError("MPF index", "\(images.count) images for \(entries.count) entries") }
        var out = Array(payload)
        func put(_ value: Int, at position: Int) throws {
            guard value >= 0, value <= Int(UInt32.max), position + 4 <= out.count else {
                throw FormatError("MPF index", "an offset does not fit")
            }
            let v = UInt32(value)
            let bytes: [UInt8] = byteOrder == .bigEndian
                ? [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
                : [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
            out.replaceSubrange(position..<(position + 4), with: bytes)
        }
        for (i, image) in images.enumerated() {
            let entry = entryTablePayloadOffset + i * 16
            try put(image.size, at: entry + 4)
            try put(i == 0 ? 0 : image.start - tiffHeader, at: entry + 8)
        }
        return out
    }
}
