import Codecs
import Containers
import Filters
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import Library

/// Files that lie about themselves, made here from corpus files patched in a scratch
/// folder: each gives a clear error or a result, never a crash or a hang.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct HostileFileTests {
    /// A corpus file with every `from` replaced by `to`, written into `scratch`.
    static func patched(_ relative: String, _ from: [UInt8], _ to: [UInt8], count: Int = 1, in scratch: ScratchDirectory) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Media.path(relative))))
        var found = 0
        var i = 0
        while i + from.count <= bytes.count {
            if bytes[i..<(i + from.count)].elementsEqual(from) {
                bytes.replaceSubrange(i..<(i + from.count), with: to)
                found += 1
                i += to.count
            } else {
                i += 1
            }
        }
        #expect(found == count, "\(relative): \(found) places to patch, \(count) expected")
        let url = scratch.url.appendingPathComponent("patched-" + URL(fileURLWithPath: relative).lastPathComponent)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func box(_ type: String, _ values: [UInt32]) -> [UInt8] {
        Array(type.utf8) + [0, 0, 0, 0] + values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    }

    /// pug.heic's 512x512 tiles declared as 1024x1024 (their shared `ispe`): rendered tile
    /// by tile, the render refuses the picture and says why; it read past a tile before.
    @Test func aGridWhoseTilesAreSmallerThanDeclaredIsRefused() throws {
        let scratch = try ScratchDirectory()
        let path = try Self.patched(
            "apple-portrait-heic/pug.heic", Self.box("ispe", [512, 512]), Self.box("ispe", [1024, 1024]), in: scratch)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let recipe = FilterRecipe(steps: [try FilterStep(name: "mono")])
        let error = #expect(throws: (any Error).self) {
            try StillRenderer.renderHEIF(path: path, bytes: bytes, auxiliaryBytes: bytes, recipe: recipe, embeddedMovie: nil, tiledAbove: 0)
        }
        #expect("\(error!)".contains("512x512") && "\(error!)".contains("1024x1024"), "\(error!)")
    }

    /// IMG_4394.mov's `ctts` declaring 16 million entries in a box of 52 bytes: the
    /// table is read as far as the box goes, at once; the edit ends (FFmpeg, confused by
    /// the same table, decodes two frames fewer, which the edit reports, naming the file).
    @Test func aSampleTableCountBeyondItsBoxIsBoundedByTheBox() throws {
        let scratch = try ScratchDirectory()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Media.path("apple-live-photo/IMG_4394.mov"))))
        let at = try #require((0..<(original.count - 4)).first { original[$0..<($0 + 4)].elementsEqual(Array("ctts".utf8)) })
        var bytes = original
        bytes.replaceSubrange((at + 8)..<(at + 12), with: [1, 0, 0, 0])
        // Read on a thread of its own, so that a loop that does not end fails the test.
        let parsed = Mutex<Result<MovieTracks, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [bytes] in
            let result = Result { try MovieTracks(file: bytes) }
            parsed.withLock { $0 = result }
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 20) == .success, "reading the tables did not end")
        let tracks = try #require(parsed.withLock { $0 }).get()
        let video = try #require(tracks.tracks.first { $0.handler == "vide" })
        let truth = try #require(try MovieTracks(file: original).tracks.first { $0.handler == "vide" })
        #expect(video.samples == truth.samples, "the entries the box holds are the movie's own")
        // Through `camlib edit`, within a minute (it spun forever before).
        let url = scratch.url.appendingPathComponent("IMG_4394.mov")
        try Data(bytes).write(to: url)
        let library = scratch.url.appendingPathComponent("library").path
        #expect(try Camlib.run(["import", "--library", library, url.path]).status == 0)
        let edit = try run("/usr/bin/timeout", ["-s", "KILL", "120", Camlib.path, "edit", "1", "--filter", "mono", "--library", library])
        #expect(!edit.signaled, "killed after two minutes: \(edit.stderr)")
        #expect(edit.status == 0 || edit.stderr.contains("asset 1 (IMG_4394.mov)"), "\(edit.stderr)")
    }

    /// A progressive JPEG of a corpus photo, its frame header patched to declare `width` x
    /// `height` (the data stays the small picture's): what a small file claiming 400
    /// megapixels looks like.
    static func jpegDeclaring(width: Int, height: Int, from relative: String, in scratch: ScratchDirectory) throws -> String {
        // Progressive, as the file that took the gallery to 2.4 GB was: libjpeg then holds
        // every coefficient of the declared picture.
        let picture = try JPEGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(relative))))).pixels
        var bytes = try JPEGCodec.encode(picture, quality: 80, progressive: true)
        #expect(JPEGCodec.isProgressive(bytes))
        let segments = try JPEGSegments(parsing: bytes)
        let frame = try #require(segments.segments.first { [0xC0, 0xC1, 0xC2].contains($0.marker) })
        let at = frame.offset + 4 + 1  // marker, length, then precision
        bytes.replaceSubrange(at..<(at + 4), with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        let url = scratch.url.appendingPathComponent("declares-\(width)x\(height).jpg")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Every decode path refuses a picture over the pixel limit from its header, before
    /// the decoder allocates it (a 4 KB progressive JPEG declaring 20000x20000 took the
    /// gallery to 2.4 GB for one preview): previews, edits, thumbnails on import.
    @Test func aPictureDeclaringMoreThanTheLimitIsRefusedByEveryDecoder() throws {
        let scratch = try ScratchDirectory()
        let path = try Self.jpegDeclaring(width: 20000, height: 20000, from: "orientation/Landscape_1.jpg", in: scratch)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let error = #expect(throws: JPEGError.self) { try JPEGCodec.decode(bytes, atLeast: 2048) }
        #expect(error?.message.contains("20000x20000 (400 megapixels)") == true, "\(String(describing: error))")
        #expect(throws: JPEGError.self) { try JPEGCodec.decode(bytes) }
        // What the gallery's previews and camlib edit decode through.
        #expect(throws: JPEGError.self) { try DisplayRendering.orientedStill(path: path, maxSide: 2048) }
        let edit = #expect(throws: (any Error).self) {
            try StillRenderer.render(path: path, recipe: FilterRecipe(steps: [try FilterStep(name: "mono")]))
        }
        #expect("\(edit!)".contains("megapixels"), "\(edit!)")
        // Import says why it cannot make the thumbnail, naming the file.
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: [path])
        #expect(report.errors.count == 1 && report.errors.first?.message.contains("megapixels") == true, "\(report.errors)")
        #expect(try library.verify(quick: false).sound)
    }
}
