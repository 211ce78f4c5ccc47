/// The JPEG thumbnail in an Exif TIFF's IFD1 (`JPEGInterchangeFormat`, tag 0x0201, and its
/// length, 0x0202), replaced in place: every other byte of the Exif (the MakerNote with its
/// own offsets, GPS, …) stays where it was. A thumbnail at the end of the TIFF, as cameras
/// write it, is cut off and the new one put there; one elsewhere is left as dead bytes and
/// the new one appended.
public enum ExifThumbnail {
    /// Where IFD1's offset and length values are, when the TIFF has a JPEG thumbnail.
    struct Location {
        var offsetField: Int
        var lengthField: Int
        var start: Int
        var length: Int
        var bigEndian: Bool
    }

    static func locate(_ tiff: [UInt8]) -> Location? {
        guard let order = TIFFByteOrder(tiff) else { return nil }
        func u16(_ at: Int) -> Int? { order.u16(tiff, at) }
        func u32(_ at: Int) -> Int? { order.u32(tiff, at) }
        guard let ifd0 = u32(4), let count0 = u16(ifd0), let ifd1 = u32(ifd0 + 2 + 12 * count0), ifd1 > 0, let count1 = u16(ifd1) else {
            return nil
        }
        var offsetField: Int?, lengthField: Int?
        for i in 0..<count1 {
            let entry = ifd1 + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0201 { offsetField = entry + 8 }
            if tag == 0x0202 { lengthField = entry + 8 }
        }
        guard let offsetField, let lengthField, let start = u32(offsetField), let length = u32(lengthField), start + length <= tiff.count
        else { return nil }
        return Location(offsetField: offsetField, lengthField: lengthField, start: start, length: length, bigEndian: order.bigEndian)
    }

    /// The thumbnail's bytes, if the TIFF has one.
    public static func thumbnail(in tiff: [UInt8]) -> [UInt8]? {
        locate(tiff).map { Array(tiff[$0.start..<($0.start + $0.length)]) }
    }

    /// The TIFF with `jpeg` as its thumbnail; nil when it has no IFD1 thumbnail to replace.
    public static func replacing(in tiff: [UInt8], with jpeg: [UInt8]) -> [UInt8]? {
        guard let at = locate(tiff) else { return nil }
        var out = tiff
        let start: Int
        if at.start + at.length == tiff.count {
            out.removeSubrange(at.start...)
            start = at.start
        } else {
            start = out.count
        }
        out += jpeg
        func put(_ value: Int, at field: Int) {
            let b = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            out.replaceSubrange(field..<(field + 4), with: at.bigEndian ? b : b.reversed())
        }
        put(start, at: at.offsetField)
        put(jpeg.count, at: at.lengthField)
        return out
    }
}
