import Foundation
import Testing
import TestSupport

@testable import Library

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct MediaAnalyzerTests {
    private func analysis(_ relative: String, in scratch: ScratchDirectory) throws -> MediaAnalysis {
        guard case .analyzed(let a) = MediaAnalyzer.analyze(path: Media.path(relative), stagingDirectory: scratch.url) else {
            throw MissingMedia(path: relative + " did not analyse")
        }
        return a
    }

    @Test func embeddedThumbnailsAreUsedWhenBigEnoughAndDecodedOtherwise() throws {
        let scratch = try ScratchDirectory()
        // iPhone 15 Pro HEIC: a 312x416 thumbnail item, used as is (scaled to 240x320).
        let heic = try analysis("apple-live-photo/IMG_3582.HEIC", in: scratch)
        #expect(heic.thumbnail?.source == "embedded")
        #expect(heic.thumbnail?.width == 240 && heic.thumbnail?.height == 320)
        // No thumbnail item at all: decoded.
        #expect(try analysis("apple-portrait-heic/pug.heic", in: scratch).thumbnail?.source == "decoded")
        // iPhone JPEGs embed 160x120, too small: decoded (and turned: EXIF 6).
        let jpeg = try analysis("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg", in: scratch)
        #expect(jpeg.thumbnail?.source == "decoded")
        #expect(jpeg.thumbnail?.width == 240 && jpeg.thumbnail?.height == 320)
    }

    @Test func theStagedCopyIsTheOriginalByteForByteAndReadOnly() throws {
        let scratch = try ScratchDirectory()
        for name in ["apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov"] {
            let a = try analysis(name, in: scratch)
            #expect(try Data(contentsOf: URL(fileURLWithPath: a.stagedCopy)) == Data(contentsOf: URL(fileURLWithPath: Media.path(name))))
            #expect(try FileReading.sha256(of: a.stagedCopy) == a.sha256)
            let mode = try FileManager.default.attributesOfItem(atPath: a.stagedCopy)[.posixPermissions] as? Int
            #expect(mode == 0o444)
        }
    }

    @Test func aFileTheLibraryHoldsIsNeitherDecodedNorCopied() throws {
        let scratch = try ScratchDirectory()
        let outcome = MediaAnalyzer.analyze(
            path: Media.path("apple-live-photo/IMG_3582.mov"), stagingDirectory: scratch.url, isKnown: { _ in true })
        guard case .alreadyInLibrary(_, let sha, let format) = outcome else {
            Issue.record("expected alreadyInLibrary, got \(outcome)")
            return
        }
        #expect(format == .quicktime && sha.count == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }
}

@Test func aTopLevelBoxIsReadWithoutTheMediaData() throws {
    let scratch = try ScratchDirectory()
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }
    let moov = box("moov", box("mvhd", [UInt8](repeating: 7, count: 100)))
    let path = scratch.file("movie.mov")
    let whole = box("ftyp", Array("qt  ".utf8)) + box("mdat", [UInt8](repeating: 0, count: 5000)) + moov
    try Data(whole).write(to: URL(fileURLWithPath: path))
    let found = try #require(FileReading.topLevelBox("moov", of: path))
    #expect(found.box == moov && found.fileSize == whole.count)
    #expect(FileReading.topLevelBox("free", of: path) == nil)
    // A box claiming more bytes than the file has: damaged, nothing read.
    try Data(box("ftyp", Array("qt  ".utf8)) + [0, 1, 0, 0] + Array("mdat".utf8) + moov).write(to: URL(fileURLWithPath: path))
    #expect(FileReading.topLevelBox("moov", of: path) == nil)
}
