import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// Copies corpus files into a scratch folder under new names.
private func stage(_ files: [(String, String)], in dir: URL) throws {
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for (source, name) in files {
        let path = Media.path(source)
        guard FileManager.default.fileExists(atPath: path) else { throw MissingMedia(path: path) }
        try FileManager.default.copyItem(atPath: path, toPath: dir.appendingPathComponent(name).path)
    }
}

private func newLibrary(_ scratch: ScratchDirectory) throws -> PhotoLibrary {
    try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
}

private func importing(_ paths: [URL], into library: PhotoLibrary) throws -> ImportReport {
    try Importer(library: library).run(paths: paths.map(\.path))
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct PairingScenarioTests {
    @Test func aMovieImportedLaterFromElsewhereUnderAnotherNamePairsByIdentifier() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let a = scratch.url.appendingPathComponent("phone-export")
        let b = scratch.url.appendingPathComponent("days-later")
        try stage([("apple-live-photo/IMG_3582.HEIC", "IMG_3582.HEIC")], in: a)
        try stage([("apple-live-photo/IMG_3582.mov", "clip_3.mov")], in: b)
        let first = try importing([a], into: library)
        #expect(first.assetsCreated == 1 && first.livePhotosPaired == 0)
        let second = try importing([b], into: library)
        #expect(second.assetsCreated == 0 && second.livePhotosPaired == 1 && second.imported == 1)
        let asset = try library.describe([first.assetIDs[0]])[0]
        #expect(asset.kind == .live)
        #expect(asset.pairing?.rule == .contentIdentifier)
        #expect(asset.resources.first { $0.role == .pairedVideo }?.originalName == "clip_3.mov")
    }

    @Test func aStillImportedAfterItsMovieTurnsTheVideoIntoALivePhoto() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let a = scratch.url.appendingPathComponent("movies")
        let b = scratch.url.appendingPathComponent("stills")
        try stage([("apple-live-photo/IMG_4394.mov", "IMG_4394.mov")], in: a)
        try stage([("apple-live-photo/IMG_4394.HEIC", "photo.heic")], in: b)
        let first = try importing([a], into: library)
        #expect(try library.describe(first.assetIDs)[0].kind == .video)
        let second = try importing([b], into: library)
        #expect(second.assetIDs == first.assetIDs && second.livePhotosPaired == 1)
        let asset = try library.describe(first.assetIDs)[0]
        #expect(asset.kind == .live && asset.width == 3024 && asset.height == 4032)
        #expect(asset.resources.map(\.role).filter { $0 != .thumbnail } == [.photo, .pairedVideo])
    }

    @Test func differingIdentifiersNeverPairEvenWithTheSameStem() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let dir = scratch.url.appendingPathComponent("mixed")
        try stage([("apple-live-photo/IMG_3582.HEIC", "IMG_3582.HEIC"), ("apple-live-photo/IMG_4394.mov", "IMG_3582.MOV")], in: dir)
        let report = try importing([dir], into: library)
        #expect(report.livePhotosPaired == 0 && report.assetsCreated == 2)
        #expect(Set(try library.describe(report.assetIDs).map(\.kind)) == [.photo, .video])
    }

    @Test func twoStillsWithOneIdentifierNeverShareTheMovie() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let dir = scratch.url.appendingPathComponent("twins")
        try stage([("apple-live-photo/IMG_3582.HEIC", "IMG_3582.HEIC"), ("apple-live-photo/IMG_3582.mov", "IMG_3582.mov")], in: dir)
        // Same identifier, other bytes: the HEIC with an empty 'free' box appended.
        var twin = try Data(contentsOf: URL(fileURLWithPath: Media.path("apple-live-photo/IMG_3582.HEIC")))
        twin.append(contentsOf: [0, 0, 0, 8] + Array("free".utf8))
        try twin.write(to: dir.appendingPathComponent("IMG_3582 copy.HEIC"))
        let report = try importing([dir], into: library)
        #expect(report.errors == [] && report.assetsCreated == 2 && report.livePhotosPaired == 1)
        let kinds = try library.describe(report.assetIDs).map(\.kind).sorted { $0.rawValue < $1.rawValue }
        #expect(kinds == [.live, .photo])
    }

    @Test func stillAndMovieWithoutIdentifiersPairByStemAndTime() throws {
        guard toolExists("ffmpeg"), toolExists("exiftool") else { throw MissingMedia(path: "ffmpeg and exiftool (run ./setup.sh)") }
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let dir = scratch.url.appendingPathComponent("stripped")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // IMG_0001: still 10:00:00+01:00, movie starting 09:00:01Z (1 s apart) → pair.
        // IMG_0002: the movie is an hour off → no pair. IMG_0003: a 10 s movie → no pair.
        for (stem, stillTime, movieTime, seconds, width) in [
            ("IMG_0001", "2024:03:01 10:00:00", "2024-03-01T09:00:01Z", 2, 320),
            ("IMG_0002", "2024:03:01 10:00:00", "2024-03-01T10:00:01Z", 2, 330),
            ("IMG_0003", "2024:03:01 10:00:00", "2024-03-01T09:00:01Z", 10, 340),
        ] {
            let jpg = dir.appendingPathComponent("\(stem).JPG").path
            let mov = dir.appendingPathComponent("\(stem).MOV").path
            // Distinct sizes keep the three stills from being byte-identical duplicates.
            var r = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x240:rate=1", "-frames:v", "1", "-y", jpg])
            #expect(r.status == 0, "\(r.stderr)")
            r = try run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=\(stillTime)", "-OffsetTimeOriginal=+01:00", jpg])
            #expect(r.status == 0, "\(r.stderr)")
            r = try run("ffmpeg", [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15", "-t", "\(seconds)", "-c:v", "mpeg4",
                "-metadata", "creation_time=\(movieTime)", "-y", mov,
            ])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let report = try importing([dir], into: library)
        #expect(report.errors == [])
        #expect(report.livePhotosPaired == 1 && report.assetsCreated == 5)
        let live = try library.describe(try { var q = AssetQuery(); q.kinds = [.live]; return try library.assetIDs(matching: q) }())
        #expect(live.count == 1)
        #expect(live.first?.primaryOriginal?.originalName == "IMG_0001.JPG")
        #expect(live.first?.pairing == AssetDescription.Pairing(rule: .stem, confidence: 0.9))
        #expect(live.first?.contentIdentifier == nil)
    }

    @Test func reimportingAFolderAddsNothing() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let folder = URL(fileURLWithPath: Media.path("apple-live-photo"))
        let first = try importing([folder], into: library)
        let counts = { try library.catalog.sqliteRead { db in
            try ["asset", "resource", "metadata", "pairing"].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)")! }
        } }
        let before = try counts()
        let second = try importing([folder], into: library)
        #expect(first.imported == first.files)
        #expect(second.imported == 0 && second.assetsCreated == 0 && second.duplicates == first.files)
        #expect(try counts() == before)
        let originals = try FileManager.default.subpathsOfDirectory(atPath: library.layout.originals.path).filter { !$0.hasSuffix("/") }
        #expect(originals.filter { $0.contains(".") }.count == first.files)
    }

    @Test func aSidecarImportedAfterItsPhotoAttachesAndOneWithoutAPhotoIsSkipped() throws {
        let scratch = try ScratchDirectory()
        let library = try newLibrary(scratch)
        let dir = scratch.url.appendingPathComponent("camera-roll")
        try stage([("apple-live-photo/IMG_3582.HEIC", "IMG_3582.HEIC"), ("apple-live-photo/IMG_3582.AAE", "IMG_3582.AAE"),
                   ("apple-misc/IMG_4120.AAE", "IMG_4120.AAE")], in: dir)
        let first = try importing([dir.appendingPathComponent("IMG_3582.HEIC")], into: library)
        let second = try importing([dir.appendingPathComponent("IMG_3582.AAE"), dir.appendingPathComponent("IMG_4120.AAE")], into: library)
        #expect(second.attached == 1 && second.skipped == 1 && second.errors == [])
        #expect(second.skippedFiles.first?.message.contains("without its photo") == true)
        let asset = try library.describe(first.assetIDs)[0]
        #expect(asset.resources.contains { $0.role == .adjustmentSidecar && $0.originalName == "IMG_3582.AAE" })
    }
}
