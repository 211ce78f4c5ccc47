/// The Apple MakerNote (EXIF tag 0x927C in iPhone photos): an IFD after an
/// `Apple iOS\0` header, big-endian, with offsets relative to the MakerNote's start.
///
/// camlib reads it itself because libexif does not name the Live Photo tags.
/// ```swift
/// let note = try AppleMakerNote(bytes: makerNoteBytes)
/// note.contentIdentifier   // "602FEBB7-6B59-4799-96E6-9C8484D873C7"
/// ```
public struct AppleMakerNote: Sendable, Equatable {
    public enum Tag {
        public static let makerNoteVersion: UInt16 = 0x0001
        public static let hdrImageType: UInt16 = 0x000A
        /// Pairs a Live Photo's still with its movie (`com.apple.quicktime.content.identifier`).
        /// exiftool 12.57 calls it MediaGroupUUID, later versions ContentIdentifier.
        public static let contentIdentifier: UInt16 = 0x0011
        public static let livePhotoVideoIndex: UInt16 = 0x0017
    }

    public let directory: TIFFDirectory

    public var version: Int? { directory[Tag.makerNoteVersion]?.int.map(Int.init) }
    public var contentIdentifier: String? { nonEmpty(directory[Tag.contentIdentifier]?.string) }
    public var livePhotoVideoIndex: Int64? { directory[Tag.livePhotoVideoIndex]?.int }

    static let signature = Array("Apple iOS".utf8) + [0]

    /// Whether `bytes` start like an Apple MakerNote.
    public static func matches(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: signature)
    }

    public init(bytes: [UInt8]) throws {
        guard Self.matches(bytes) else {
            throw FormatError("Apple MakerNote", "missing the 'Apple iOS' signature")
        }
        // Header: signature (10 bytes), version (2), byte order mark (2), then the IFD.
        var reader = ByteReader(bytes, context: "Apple MakerNote")
        let mark = try reader.slice(at: 12, count: 2)
        switch Array(mark) {
        case [0x4D, 0x4D]: reader.order = .bigEndian
        case [0x49, 0x49]: reader.order = .littleEndian
        default: throw FormatError("Apple MakerNote", "unknown byte order mark")
        }
        directory = try TIFFDirectory(reader: reader, offset: 14, base: 0)
    }

    private func nonEmpty(_ s: String?) -> String? {
        guard let s else { return nil }
        let trimmed = s.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
        return trimmed.isEmpty ? nil : String(trimmed.reversed())
    }
}

extension AppleMakerNote {
    /// A MakerNote as iPhones write it (`Apple iOS\0`, version 1, big-endian IFD with
    /// offsets from the MakerNote's start) holding `contentIdentifier` (tag 0x0011), the
    /// half of a Live Photo's pairing the still carries.
    public static func bytes(contentIdentifier: String) -> [UInt8] {
        let header = signature + [0x00, 0x01] + Array("MM".utf8)
        let entries: [TIFFWriter.Entry] = [
            (Tag.makerNoteVersion, .signedLong([14])),
            (Tag.contentIdentifier, .ascii(contentIdentifier)),
        ]
        return header + TIFFWriter.ifd(entries, at: header.count, bigEndian: true)
    }
}
