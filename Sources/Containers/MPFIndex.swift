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
        let ifd = try TIFFDirectory(reader: r, offset: Int(try r.u32(at: 4)))
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
    }
}
