extension MPFIndex {
    /// MP Type "Baseline MP Primary Image", as an iPhone marks a Portrait JPEG's photo.
    public static let primaryAttribute: UInt32 = 0x0003_0000

    /// The payload of an `MPF\0` APP2 segment as iPhones write it (big-endian): MP Format
    /// version 0100, the number of images, and for the first image the MP Entry table
    /// (`entries`: attribute, size, offset from this segment's TIFF header, 0 for the
    /// first image). The other images carry the version and count only.
    public static func segmentPayload(numberOfImages: Int, entries: [(attribute: UInt32, size: Int, offset: Int)]? = nil) throws -> [UInt8] {
        var fields: [TIFFWriter.Entry] = [(0xB000, .undefined(Array("0100".utf8))), (0xB001, .long([UInt32(numberOfImages)]))]
        if let entries {
            var table: [UInt8] = []
            for e in entries {
                guard e.size >= 0, e.size <= Int(UInt32.max), e.offset >= 0, e.offset <= Int(UInt32.max) else {
                    throw FormatError("MPF index", "an image's size or offset does not fit in 32 bits")
                }
                table += be32(e.attribute) + be32(UInt32(e.size)) + be32(UInt32(e.offset)) + [0, 0, 0, 0]
            }
            fields.append((0xB002, .undefined(table)))
        }
        return Array("MPF".utf8) + [0] + [0x4D, 0x4D, 0x00, 0x2A] + be32(8) + TIFFWriter.ifd(fields, at: 8, bigEndian: true)
    }

    /// `jpeg` with `image` (a whole JPEG) added as its last MPF image, with MP attribute
    /// `attribute` (0: undefined, as iPhones mark depth and mattes). Every byte of the
    /// photo stays as it is but its `MPF\0` segment, which is written again (or added
    /// after the leading APP0/APP1 segments, where CIPA DC-007 puts it) to list the new
    /// image; the MPF images already there follow the photo as they did.
    ///
    /// A file with bytes after its images that no MPF entry lists (a Motion Photo's movie,
    /// which readers find by its distance from the end of the file) is refused rather
    /// than have those bytes move or the image go after them.
    public static func appending(_ image: [UInt8], attribute: UInt32 = 0, to jpeg: [UInt8]) throws -> [UInt8] {
        let segments = try JPEGSegments(parsing: jpeg)
        guard let primaryEnd = JPEGSegments.endOfImage(in: jpeg) else { throw FormatError("JPEG", "the photo has no end-of-image marker") }
        var entries: [(attribute: UInt32, size: Int, offset: Int)] = [(primaryAttribute, primaryEnd, 0)]
        var end = primaryEnd
        var replaced: Range<Int>?
        if let old = segments.mpfSegment {
            let index: MPFIndex
            do {
                index = try MPFIndex(segment: old)
            } catch {
                throw FormatError("MPF index", "the photo's MPF index is damaged (\(error)); camlib does not add an image to it")
            }
            guard let first = index.entries.first, first.isPrimary else {
                throw FormatError("MPF index", "the photo's MPF index does not start with the photo itself")
            }
            entries[0].attribute = first.attribute
            for entry in index.entries.dropFirst() {
                guard entry.offset >= primaryEnd, entry.size > 0, entry.offset + entry.size <= jpeg.count else {
                    throw FormatError("MPF index", "an MPF image (offset \(entry.offset), \(entry.size) bytes) lies outside the file's images")
                }
                entries.append((entry.attribute, entry.size, entry.offset))
                end = max(end, entry.offset + entry.size)
            }
            replaced = old.offset..<(old.offset + 4 + old.payload.count)
        }
        guard end == jpeg.count else {
            throw FormatError(
                "JPEG", "\(jpeg.count - end) bytes follow the photo's images (a Motion Photo's movie or another trailer); adding an image would move them")
        }
        entries.append((attribute, image.count, end))

        // The new segment's size depends only on the number of entries.
        let segmentSize = 4 + (try segmentPayload(numberOfImages: entries.count, entries: entries.map { ($0.attribute, 0, 0) }).count)
        let at = replaced?.lowerBound ?? insertionPoint(segments)
        let growth = segmentSize - (replaced?.count ?? 0)
        let tiffHeader = at + 8
        var placed = entries
        placed[0].size = primaryEnd + growth
        for i in placed.indices.dropFirst() { placed[i].offset = entries[i].offset + growth - tiffHeader }
        let payload = try segmentPayload(numberOfImages: placed.count, entries: placed)
        guard payload.count + 2 <= 0xFFFF else { throw FormatError("MPF index", "too many images for one APP2 segment") }
        let segment: [UInt8] = [0xFF, 0xE2] + be16(UInt16(payload.count + 2)) + payload
        var out = jpeg
        out.replaceSubrange(replaced ?? at..<at, with: segment)
        out += image
        return out
    }

    /// Where a new MPF segment goes: after SOI and the APP0 (JFIF) and APP1 (Exif, XMP)
    /// segments that lead the file.
    static func insertionPoint(_ segments: JPEGSegments) -> Int {
        for s in segments.segments where s.marker != 0xE0 && s.marker != 0xE1 { return s.offset }
        return 2
    }
}
