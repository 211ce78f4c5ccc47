/// The chunks of a PNG file that carry facts rather than pixels: the header's size and
/// the `eXIf` block (a TIFF structure, as in JPEG's APP1 without the `Exif\0\0` prefix).
public struct PNGChunks: Sendable {
    public let width: Int
    public let height: Int
    public let bitDepth: Int
    public let colorType: Int
    /// Samples per pixel as decoded: gray 1, gray+alpha 2, RGB and palette 3, RGBA 4.
    public var channels: Int {
        switch colorType {
        case 0: 1
        case 4: 2
        case 6: 4
        default: 3
        }
    }
    public let exifTIFF: ArraySlice<UInt8>?
    /// Every chunk in file order: its type and where the whole chunk (length, type, data,
    /// CRC) lies in the bytes.
    public let chunks: [(type: String, range: Range<Int>)]

    public init(parsing bytes: [UInt8]) throws {
        let r = ByteReader(bytes, context: "PNG")
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw FormatError("PNG", "missing the PNG signature")
        }
        var pos = 8
        var header: (Int, Int, Int, Int)?
        var exif: ArraySlice<UInt8>?
        var chunks: [(type: String, range: Range<Int>)] = []
        while pos + 8 <= bytes.count {
            let length = Int(try r.u32(at: pos))
            let type = try r.fourCC(at: pos + 4)
            guard length <= bytes.count - pos - 12 else {
                throw FormatError("PNG chunk '\(type)' at \(pos)", "length \(length) runs past the end")
            }
            let data = try r.slice(at: pos + 8, count: length)
            chunks.append((type, pos..<(pos + 12 + length)))
            switch type {
            case "IHDR":
                guard length >= 13 else { throw FormatError("PNG IHDR", "too short") }
                let d = ByteReader(Array(data), context: "PNG IHDR")
                header = (Int(try d.u32(at: 0)), Int(try d.u32(at: 4)), Int(try d.u8(at: 8)), Int(try d.u8(at: 9)))
            case "eXIf":
                exif = data
            case "IDAT", "IEND":
                // Metadata chunks may also follow the image data; keep going until IEND.
                if type == "IEND" { pos = bytes.count; continue }
            default: break
            }
            pos += 12 + length
        }
        guard let (w, h, depth, color) = header else { throw FormatError("PNG", "no IHDR chunk") }
        guard w > 0, h > 0 else { throw FormatError("PNG IHDR", "image size \(w)x\(h) is empty") }
        (width, height, bitDepth, colorType) = (w, h, depth, color)
        exifTIFF = exif
        self.chunks = chunks
    }
}
