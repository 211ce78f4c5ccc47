import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import Library
import Testing
import TestSupport

@testable import Gallery

/// Downloads through the gallery's router: one file as itself, several as a ZIP whose
/// files are the library's bytes under `camlib export`'s names, an album without its
/// trash, and clear refusals.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct GalleryDownloadTests {
    /// The names and sha256s of a ZIP's files, read back by Python's zipfile.
    static func contents(_ bytes: ByteBuffer, in scratch: ScratchDirectory) throws -> [String: String] {
        let path = scratch.file("download-\(UUID().uuidString.prefix(6)).zip")
        try Data(buffer: bytes).write(to: URL(fileURLWithPath: path))
        let result = try run("/usr/bin/python3", [
            "-c", "import sys, zipfile, hashlib\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist(): print(i.filename, hashlib.sha256(z.read(i)).hexdigest())",
            path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return Dictionary(uniqueKeysWithValues: result.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), String(parts[1]))
        })
    }

    @Test func oneFileAsItselfAndSeveralAsAZipOfTheLibrarysBytes() async throws {
        let corpus = try GalleryLibrary.shared()
        let live = try corpus.asset("apple-live-photo/IMG_4394.HEIC")
        let photo = try corpus.asset("orientation/Landscape_3.jpg")
        let scratch = try ScratchDirectory()
        var expected: [String: String] = [:]
        for (name, relative) in [("IMG_4394.HEIC", "apple-live-photo/IMG_4394.HEIC"), ("IMG_4394.mov", "apple-live-photo/IMG_4394.mov"), ("Landscape_3.jpg", "orientation/Landscape_3.jpg")] {
            expected[name] = try FileReading.sha256(of: Media.path(relative))
        }
        let wanted = expected
        try await corpus.test { client in
            try await client.execute(uri: "/download?assets=\(photo.id)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition] == #"attachment; filename="Landscape_3.jpg"; filename*=UTF-8''Landscape_3.jpg"#)
                #expect(response.headers[.contentType] == "image/jpeg")
                let original = try Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/Landscape_3.jpg")))
                #expect(Data(buffer: response.body) == original)
            }
            try await client.execute(uri: "/download?assets=\(live.id),\(photo.id)&version=original", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/zip")
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                #expect(response.headers[.contentDisposition]?.contains("camlib-2-assets-originals.zip") == true)
                let files = try Self.contents(response.body, in: scratch)
                #expect(files == wanted)
            }
            try await client.execute(uri: "/download?assets=\(live.id),999999", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("no asset with id 999999"))
            }
            try await client.execute(uri: "/download?assets=\(live.id)&version=newest", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/download", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test func anEditedAssetGivesItsRenderAsShownAndItsOriginalsWithSidecars() async throws {
        let corpus = try GalleryLibrary.shared()
        let edited = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        let isEdited = edited.adjustments.contains(where: \.current)
        try #require(isEdited, "the corpus's IMG_3582 carries Apple's edit")
        let scratch = try ScratchDirectory()
        try await corpus.test { client in
            let shown = try await client.execute(uri: "/download?assets=\(edited.id)&version=current", method: .get) { try Self.contents($0.body, in: scratch) }
            #expect(Set(shown.keys) == ["IMG_E3582.heic", "IMG_E3582.mov"] || Set(shown.keys) == ["IMG_E3582.HEIC", "IMG_E3582.MOV"], "\(shown.keys)")
            let originals = try await client.execute(uri: "/download?assets=\(edited.id)&version=original", method: .get) { try Self.contents($0.body, in: scratch) }
            #expect(Set(originals.keys).isSuperset(of: ["IMG_3582.HEIC", "IMG_3582.mov", "IMG_3582.AAE"]), "\(originals.keys)")
        }
    }

    @Test func anAlbumDownloadsWithoutWhatIsInTheTrash() async throws {
        let gallery = try GalleryLibrary(folders: ["orientation"])
        let ids = try gallery.library.assetIDs(matching: AssetQuery())
        _ = try gallery.library.createAlbum("Trip")
        _ = try gallery.library.addToAlbum("Trip", Array(ids.prefix(3)))
        _ = try gallery.library.trash([ids[0]])
        let album = try #require(try gallery.library.albums().first { $0.name == "Trip" })
        let scratch = try ScratchDirectory()
        try await gallery.test { client in
            try await client.execute(uri: "/download?album=\(album.id)&version=current", method: .get) { response in
                #expect(response.headers[.contentDisposition]?.contains(#"filename="Trip.zip""#) == true)
                let files = try Self.contents(response.body, in: scratch)
                #expect(files.count == 2)
            }
        }
    }

    @Test func filesWithTheirCRCRecordedAreSentAsTheyAreAndTheOthersAreChecksummedOnTheWay() async throws {
        let gallery = try GalleryLibrary(folders: ["orientation"])
        let ids = Array(try gallery.library.assetIDs(matching: AssetQuery()).prefix(3))
        let assets = try gallery.library.describe(ids)
        // The middle one as a file of a library from before migration 0023: no CRC-32 recorded.
        let unrecorded = try #require(assets[1].primaryOriginal)
        #expect(assets.allSatisfy { $0.primaryOriginal?.crc32 != nil })
        try gallery.library.catalog.write { db in
            try db.execute("UPDATE resource SET crc32 = NULL WHERE path = \(gallery.library.relative(URL(fileURLWithPath: unrecorded.path)))")
        }
        let scratch = try ScratchDirectory()
        let zip = scratch.file("mixed.zip")
        try await gallery.test { client in
            try await client.execute(uri: "/download?assets=\(ids.map(String.init).joined(separator: ","))", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                try Data(buffer: response.body).write(to: URL(fileURLWithPath: zip))
            }
        }
        // Bit 3 of an entry's flags: its CRC-32 and sizes follow its bytes (a data descriptor).
        let read = try run("/usr/bin/python3", [
            "-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist(): print(i.file_size, i.flag_bits & 8, i.CRC)", zip,
        ])
        #expect(read.status == 0, "\(read.stderr)")
        let entries = read.stdout.split(separator: "\n").map { $0.split(separator: " ").map { Int64($0)! } }
        let originals = assets.compactMap(\.primaryOriginal)
        #expect(entries.map { $0[0] } == originals.map(\.bytes))
        #expect(entries.map { $0[1] } == [0, 8, 0], "only the file without a recorded CRC-32 has a data descriptor")
        #expect(entries[0][2] == Int64(originals[0].crc32!) && entries[2][2] == Int64(originals[2].crc32!))
        let unzip = try run("/usr/bin/unzip", ["-t", zip])
        #expect(unzip.status == 0 && unzip.stdout.contains("No errors detected"), "\(unzip.stdout)")
    }

    @Test func aFileWhoseSizeIsNotTheOneRecordedHasItsCRC32ComputedNotTakenFromTheCatalog() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("IMG_1.JPG")
        try Data("grown since it was recorded".utf8).write(to: URL(fileURLWithPath: path))
        let recorded = Exporter.DownloadFile(name: "IMG_1.JPG", path: path, bytes: 5, asset: 1, modified: nil, crc32: 1234)
        let same = Exporter.DownloadFile(name: "IMG_1.JPG", path: path, bytes: 27, asset: 1, modified: nil, crc32: 1234)
        let checked = try GalleryAPI.checked([recorded, same])
        #expect(checked[0].bytes == 27 && checked[0].crc32 == nil)
        #expect(checked[1].crc32 == 1234)
    }
}
