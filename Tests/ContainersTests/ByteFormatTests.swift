import Foundation
import Testing
import TestSupport

@testable import Containers

@Test func truncatedJPEGSegmentIsAnErrorThatSaysWhere() {
    // SOI, then an APP1 claiming 100 bytes with only 4 present.
    let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x64, 0x45, 0x78, 0x69, 0x66]
    #expect(throws: FormatError.self) { try JPEGSegments(parsing: bytes) }
    do {
        _ = try JPEGSegments(parsing: bytes)
    } catch {
        #expect("\(error)".contains("0xFFE1 at offset 2"))
    }
}

@Test func byteReaderRefusesReadsPastTheEnd() {
    let r = ByteReader([1, 2, 3], context: "test")
    #expect(throws: FormatError.self) { try r.u32(at: 0) }
    #expect(throws: FormatError.self) { try r.u8(at: -1) }
    #expect((try? r.u16(at: 1)) == 0x0203)
}

@Test func heifIsToldFromItsFileTypeBox() {
    let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
    #expect(FileTypeBox(fileStart: ftyp)?.compatibleBrands == ["mif1", "heic"])
    #expect(MediaFormat.sniff(ftyp) == .heif)
    // A box too short to hold a brand is not a file type box.
    #expect(FileTypeBox(fileStart: [0, 0, 0, 8] + Array("ftyp".utf8)) == nil)
}

@Test func sniffingUsesContentNotNames() {
    #expect(MediaFormat.sniff([0xFF, 0xD8, 0xFF, 0xE1]) == .jpeg)
    #expect(MediaFormat.sniff([0, 0, 0, 20] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8)) == .quicktime)
    #expect(MediaFormat.sniff([0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8)) == .mp4)
    #expect(MediaFormat.sniff([0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)) == .avif)
    #expect(MediaFormat.sniff(Array("<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC".utf8)) == .appleAdjustment)
    #expect(MediaFormat.sniff(Array("hello".utf8)) == nil)
    #expect(MediaFormat.sniff([]) == nil)
}

@Test(.enabled(if: Media.shouldRun, Media.skipMessage))
func segmentsOfARealIPhoneJPEG() throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg"))))
    let segments = try JPEGSegments(parsing: bytes)
    #expect(segments.frame == JPEGSegments.Frame(width: 4032, height: 3024, components: 3, precision: 8, progressive: false))
    #expect(segments.exifTIFF != nil)
}
