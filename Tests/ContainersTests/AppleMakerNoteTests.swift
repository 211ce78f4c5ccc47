import Testing

@testable import Containers

/// An Apple MakerNote with a content identifier (ASCII, out of line) and a 64-bit
/// LivePhotoVideoIndex (type 16, LONG8), the way iOS 18 writes them.
private func makerNote(identifier: String, videoIndex: UInt64) -> [UInt8] {
    func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let header = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)  // 14 bytes
    let entries = 3
    let ifdSize = 2 + entries * 12 + 4
    let text = Array(identifier.utf8) + [0]
    let textOffset = header.count + ifdSize
    let longOffset = textOffset + text.count
    var ifd = be16(entries)
    ifd += be16(0x0001) + be16(9) + be32(1) + be32(15)  // MakerNoteVersion, SLONG, inline
    ifd += be16(0x0011) + be16(2) + be32(text.count) + be32(textOffset)
    ifd += be16(0x0017) + be16(16) + be32(1) + be32(longOffset)
    ifd += be32(0)
    let long = (0..<8).map { UInt8(videoIndex >> (56 - 8 * UInt64($0)) & 0xFF) }
    return header + ifd + text + long
}

@Test func readsContentIdentifierAndSixtyFourBitVideoIndex() throws {
    let note = try AppleMakerNote(bytes: makerNote(identifier: "602FEBB7-6B59-4799-96E6-9C8484D873C7", videoIndex: 8_595_224_612))
    #expect(note.contentIdentifier == "602FEBB7-6B59-4799-96E6-9C8484D873C7")
    #expect(note.livePhotoVideoIndex == 8_595_224_612)
    #expect(note.version == 15)
}

@Test func entriesPointingPastTheEndAreSkippedNotFatal() throws {
    var bytes = makerNote(identifier: "ABCDEFGH", videoIndex: 1)
    bytes.removeLast(8)  // the LONG8 value is now out of bounds
    let note = try AppleMakerNote(bytes: bytes)
    #expect(note.contentIdentifier == "ABCDEFGH")
    #expect(note.livePhotoVideoIndex == nil)
}

@Test func otherMakerNotesAreRejected() {
    #expect(throws: FormatError.self) { try AppleMakerNote(bytes: Array("Nikon\0\u{2}".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]) }
    #expect(throws: FormatError.self) { try AppleMakerNote(bytes: Array("Apple iOS".utf8) + [0]) }
}
