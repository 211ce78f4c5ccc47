extension JPEGSegments {
    /// `jpeg` with `tiff` as its Exif APP1 segment, placed right after SOI as the Exif
    /// standard requires; a JFIF APP0 and any earlier Exif segment are dropped.
    public static func replacingExif(in jpeg: [UInt8], with tiff: [UInt8]) throws -> [UInt8] {
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        let length = 2 + header.count + tiff.count
        guard length <= 0xFFFF else { throw FormatError("JPEG", "an Exif segment of \(length) bytes (APP1 holds 65535)") }
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw FormatError("JPEG", "no start-of-image marker") }
        var rest = 2
        // Skip the APP0 (JFIF) and APP1 (Exif) segments at the start.
        while rest + 4 <= jpeg.count, jpeg[rest] == 0xFF {
            let marker = jpeg[rest + 1]
            let size = Int(jpeg[rest + 2]) << 8 | Int(jpeg[rest + 3])
            let payload = jpeg[(rest + 4)..<min(jpeg.count, rest + 2 + size)]
            let isJFIF = marker == 0xE0 && payload.starts(with: Array("JFIF".utf8))
            let isExif = marker == 0xE1 && payload.starts(with: header)
            guard isJFIF || isExif else { break }
            rest += 2 + size
        }
        guard rest <= jpeg.count else { throw FormatError("JPEG", "a segment runs past the end") }
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + header + tiff + jpeg[rest...]
    }
}
