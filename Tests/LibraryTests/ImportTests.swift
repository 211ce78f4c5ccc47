import Crypto
import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct CorpusImportTests {
    @Test(arguments: CatalogBackend.allCases) func theLivePhotoPairsArePairedByContentIdentifier(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let pairs = [
            ("apple-live-photo/IMG_3582.HEIC", "602FEBB7-6B59-4799-96E6-9C8484D873C7"),
            ("apple-live-photo/IMG_4394.HEIC", "ED2A2552-C906-486E-9DA5-17DABDF672A7"),
            ("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg", "C3754624-A05F-474D-9F16-E9C47B5F892D"),
        ]
        for (still, identifier) in pairs {
            let asset = try corpus.asset(still)
            #expect(asset.kind == .live, "\(still)")
            #expect(asset.contentIdentifier == identifier)
            #expect(asset.pairing == AssetDescription.Pairing(rule: .contentIdentifier, confidence: 1))
            let roles = asset.resources.map(\.role)
            #expect(roles.filter { $0 == .photo }.count == 1 && roles.filter { $0 == .pairedVideo }.count == 1)
            #expect(!roles.contains(.video))
        }
        // The paired movies are not videos of their own.
        var query = AssetQuery()
        query.kinds = [.video]
        let videos = try corpus.library.describe(try corpus.library.assetIDs(matching: query))
        #expect(videos.allSatisfy { !$0.resources.contains { $0.path.hasSuffix(".mov") && $0.originalName?.hasPrefix("IMG_3582") == true } })
        #expect(videos.map { $0.primaryOriginal?.originalName } == ["quicktime-hvc1.mov"])
        let live = try corpus.library.catalog.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM live_photo") }
        // IMG_3582_edited.heic and .mov (osxphotos' naming) are IMG_3582's rendered edit.
        #expect(live == 3)
    }

    @Test(arguments: CatalogBackend.allCases) func appleSidecarsAndRenderedEditsAttachToTheirAsset(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let asset = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        let sidecars = asset.resources.filter { $0.role == .adjustmentSidecar }.compactMap(\.originalName).sorted()
        #expect(sidecars == ["IMG_3582.AAE", "IMG_O3582.aae"])
        // osxphotos' IMG_3582_edited.* are its rendered edit, Apple's current version.
        #expect(asset.resources.filter { ResourceRole.renders.contains($0.role) }.compactMap(\.originalName).sorted()
            == ["IMG_3582_edited.heic", "IMG_3582_edited.mov"])
        #expect(asset.adjustments.last(where: \.current)?.formatIdentifier == "com.apple.photo")
        // Dated when Apple made them (the sidecars' adjustmentTimestamp), not when imported.
        #expect(Set(asset.adjustments.map(\.createdAt)) == ["2025-12-29T04:07:22.000Z", "2025-05-26T14:27:06.000Z"])
        let misc = try corpus.asset("apple-misc/IMG_4120.JPG")
        #expect(misc.resources.filter { $0.role == .adjustmentSidecar }.compactMap(\.originalName) == ["IMG_4120.AAE"])
        #expect(misc.resources.filter { $0.role == .renderedPhoto }.compactMap(\.originalName) == ["IMG_E4120.JPG"])
        // Neither the sidecars nor the render became assets.
        var query = AssetQuery()
        query.name = "IMG_E4120*"
        #expect(try corpus.library.assetIDs(matching: query) == [misc.id])
        #expect(corpus.report.attached == 6)
    }

    @Test(arguments: CatalogBackend.allCases) func everyFileIsAccountedForAndNothingFailed(on backend: CatalogBackend) throws {
        let report = try CorpusLibrary.shared(on: backend).report
        #expect(report.errors == [])
        #expect(report.imported + report.duplicates + report.skipped == report.files)
        let expectedFiles = try CorpusLibrary.folders.reduce(0) { $0 + (try Media.files(in: $1).count) }
        #expect(report.files == expectedFiles)
        #expect(report.livePhotosPaired == 3)
    }

    @Test(arguments: CatalogBackend.allCases) func originalsAreByteIdenticalAndReadOnly(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let manifest = try Media.manifest()
        let rows = try corpus.library.catalog.read { db in
            try db.rows("SELECT path, sha256, source_dir, original_name FROM resource WHERE role != 'thumbnail' AND derived_from IS NULL").map(\.row)
        }
        #expect(rows.count > 40)
        for row in rows {
            let url = corpus.library.absolute(row["path"])
            let bytes = try Data(contentsOf: url)
            let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            #expect(sha == row["sha256"] as String, "\(url.path)")
            let source = URL(fileURLWithPath: row["source_dir"]).appendingPathComponent(row["original_name"])
            let relative = String(source.path.dropFirst(Media.root.path.count + 1))
            if let entry = manifest[relative] { #expect(entry.sha256 == sha, "\(relative)") }
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(mode == 0o444, "\(url.path) is not read-only")
        }
    }

    @Test(arguments: CatalogBackend.allCases) func everyFileADownloadCanHoldRecordsTheCRC32OfItsBytes(on backend: CatalogBackend) throws {
        // Originals, Motion Photos' movies, Apple's sidecars and renders: a ZIP download
        // puts the CRC-32 in its header rather than reading the file through it first.
        let corpus = try CorpusLibrary.shared(on: backend)
        let rows = try corpus.library.catalog.read { db in
            try db.rows("SELECT path, crc32 FROM resource WHERE role != 'thumbnail' ORDER BY id").map(\.row)
        }
        #expect(rows.count > 40)
        let paths = rows.map { corpus.library.absolute($0["path"] as String).path }
        let zlib = try run("/usr/bin/python3", ["-c", "import sys, zlib\nfor p in sys.argv[1:]: print(zlib.crc32(open(p, 'rb').read()))"] + paths)
        #expect(zlib.status == 0, "\(zlib.stderr)")
        let expected = zlib.stdout.split(separator: "\n").map { Int64($0)! }
        for (row, (path, crc)) in zip(rows, zip(paths, expected)) {
            #expect((row["crc32"] as Int64?) == crc, "\(path)")
        }
    }

    @Test(arguments: CatalogBackend.allCases) func displayedSizeAndOrientationMatchTheManifest(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let manifest = try Media.manifest()
        var checked = 0
        for (file, entry) in manifest where !file.hasPrefix("malformed/") && !entry.verified.isEmpty {
            guard let expected = Self.expectedDisplay(entry.verified) else { continue }
            // Rendered edits (IMG_E1234.*, IMG_1234_edited.*) join their asset without facts of their own.
            if AppleSidecarName.renderTarget(stem: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent) != nil { continue }
            let m = try corpus.metadata(file)
            #expect(m["width"] as Int? == expected.width && m["height"] as Int? == expected.height,
                    "\(file): \(m["width"] as Int? ?? -1)x\(m["height"] as Int? ?? -1), expected \(expected.width)x\(expected.height)")
            if let o = expected.orientation { #expect(m["orientation"] as Int == o, "\(file) orientation") }
            checked += 1
        }
        #expect(checked >= 35)
        // Spot checks the issue names: irot 270 HEICs display portrait.
        #expect(try corpus.asset("apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC").width == 3024)
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        #expect(live.width == 4284 && live.height == 5712 && live.orientation == 6)
        for n in 0...8 {
            let m = try corpus.metadata("orientation/Landscape_\(n).jpg")
            #expect(m["width"] as Int == 1800 && m["height"] as Int == 1200 && m["orientation"] as Int == max(n, 1))
        }
    }

    /// Displayed size (and EXIF orientation for JPEGs) from a MANIFEST "verified" text:
    /// pillow-heif's "primary=WxH" (irot applied) for HEIF, "SOFn WxH" plus exiftool's
    /// Orientation for JPEG, "PNG WxH".
    static func expectedDisplay(_ text: String) -> (width: Int, height: Int, orientation: Int?)? {
        func match(_ pattern: String) -> [String]? {
            guard let re = try? NSRegularExpression(pattern: pattern),
                let m = re.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
            else { return nil }
            return (1..<m.numberOfRanges).map { String(text[Range(m.range(at: $0), in: text)!]) }
        }
        if let g = match(#"irot applied\): images=\d+ primary=(\d+)x(\d+)"#), g[0] != "0" {
            return (Int(g[0])!, Int(g[1])!, nil)
        }
        if let g = match(#"^JPEG; SOF\d+ (\d+)x(\d+)"#) {
            let (w, h) = (Int(g[0])!, Int(g[1])!)
            let names = ["Horizontal (normal)": 1, "Mirror horizontal": 2, "Rotate 180": 3, "Mirror vertical": 4,
                         "Mirror horizontal and rotate 270 CW": 5, "Rotate 90 CW": 6, "Mirror horizontal and rotate 90 CW": 7,
                         "Rotate 270 CW": 8]
            let o = match(#"IFD0:Orientation=([^;]+?)(;|$)"#).flatMap { names[$0[0]] } ?? 1
            return o >= 5 ? (h, w, o) : (w, h, o)
        }
        if let g = match(#"^PNG (\d+)x(\d+)"#) { return (Int(g[0])!, Int(g[1])!, 1) }
        return nil
    }

    @Test(arguments: CatalogBackend.allCases) func thumbnailsAreSmallOrientedJPEGsForEveryStillAndMovie(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let rows = try corpus.library.catalog.read { db in
            try db.rows(
                """
                    SELECT r.id, r.role, m.width, m.height, t.path AS thumb FROM resource r
                    JOIN metadata m ON m.resource_id = r.id
                    LEFT JOIN resource t ON t.derived_from = r.id AND t.role = 'thumbnail'
                    """
            ).map(\.row)
        }
        for row in rows {
            let thumbPath: String? = row["thumb"]
            #expect(thumbPath != nil, "resource \(row["id"] as Int64) has no thumbnail")
            guard let thumbPath else { continue }
            let url = corpus.library.absolute(thumbPath)
            #expect(thumbPath.hasPrefix("derived/thumbnails/"))
            let jpeg = try [UInt8](Data(contentsOf: url))
            let size = try JPEGHeader.size(jpeg)
            #expect(max(size.width, size.height) <= 320)
            // Same shape as the displayed image: portrait stays portrait.
            let (w, h): (Int, Int) = (row["width"], row["height"])
            if abs(w - h) > w / 10 { #expect((size.width > size.height) == (w > h), "thumbnail of \(row["id"] as Int64) is not oriented") }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func metadataAgreesWithExiftool(on backend: CatalogBackend) throws {
        guard toolExists("exiftool") else { throw MissingMedia(path: "exiftool (run ./setup.sh)") }
        let corpus = try CorpusLibrary.shared(on: backend)
        let files = try CorpusLibrary.folders.flatMap { try Media.files(in: $0) }
            .filter { ["heic", "jpg", "jpeg", "mov", "png", "avif"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
            .filter { !URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("IMG_E") }
            .filter { !URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent.hasSuffix("_edited") }
        let result = try run("exiftool", ["-j", "-n", "-G1", "-a", "-api", "LargeFileSupport=1"] + files)
        let tags = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        var compared = 0
        for t in tags {
            let path = t["SourceFile"] as! String
            let m = try corpus.metadata(String(path.dropFirst(Media.root.path.count + 1)))
            func s(_ k: String) -> String? { (t[k] as? String) ?? (t[k] as? NSNumber).map { "\($0)" } }
            let make = s("IFD0:Make") ?? s("Keys:Make")
            let model = s("IFD0:Model") ?? s("Keys:Model")
            #expect(m["make"] as String? == make, "\(path) make")
            #expect(m["model"] as String? == model, "\(path) model")
            let identifier = s("Apple:MediaGroupUUID") ?? s("Apple:ContentIdentifier") ?? s("Keys:ContentIdentifier")
            #expect(m["content_identifier"] as String? == identifier, "\(path) content identifier")
            if let index = t["Apple:LivePhotoVideoIndex"] as? NSNumber {
                #expect(m["live_photo_video_index"] as Int64? == index.int64Value, "\(path) LivePhotoVideoIndex")
            }
            if let original = s("ExifIFD:DateTimeOriginal") {
                let expected = CaptureTimeText.exif(original, sub: s("ExifIFD:SubSecTimeOriginal"), offset: s("ExifIFD:OffsetTimeOriginal"))
                #expect(m["captured_at"] as String? == expected, "\(path) capture time")
            } else if let created = s("Keys:CreationDate") {
                #expect(m["captured_at"] as String? == CaptureTimeText.quickTime(created), "\(path) capture time")
            }
            if let lat = t["Composite:GPSLatitude"] as? Double, let lon = t["Composite:GPSLongitude"] as? Double {
                #expect(abs((m["latitude"] as Double? ?? 999) - lat) < 1e-4, "\(path) latitude")
                #expect(abs((m["longitude"] as Double? ?? 999) - lon) < 1e-4, "\(path) longitude")
            }
            if let lens = s("ExifIFD:LensModel") { #expect(m["lens_model"] as String? == lens, "\(path) lens") }
            if let duration = t["QuickTime:Duration"] as? Double {
                #expect(abs((m["duration"] as Double? ?? -1) - duration) < 0.01, "\(path) duration")
            }
            compared += 1
        }
        #expect(compared >= 40)
    }

    @Test(arguments: CatalogBackend.allCases) func sqlViewsAnswerCommonQuestions(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let (cameras, roleRows, halves) = try corpus.library.catalog.read { db in
            (
                try db.rows("SELECT * FROM assets_by_camera WHERE model = 'iPhone 15 Pro'").map(\.row),
                try db.rows("SELECT role, files FROM storage_by_role").map(\.row),
                try db.fetchAll(String.self, "SELECT path FROM unpaired_live_half")
            )
        }
        #expect((cameras.first?["assets"] as Int?) ?? 0 >= 4)
        let roles = Dictionary(uniqueKeysWithValues: roleRows.map { ($0["role"] as String, $0["files"] as Int) })
        // Three Live Photo movies and four Motion Photo movies; Apple's renders of two edits
        // (IMG_E4120.JPG, and IMG_3582_edited.heic with its movie).
        #expect(roles["pairedVideo"] == 7 && roles["adjustmentSidecar"] == 3 && roles["renderedPhoto"] == 2 && roles["renderedVideo"] == 1)
        // IMG_4076 is a spatial photo: its MakerNote identifier does not make it half a
        // Live Photo (migration 0018); every Live Photo movie of the corpus has its still.
        #expect(halves.isEmpty, "\(halves)")
    }
}

/// Capture times as camlib writes them, built from exiftool's separate fields.
enum CaptureTimeText {
    static func exif(_ date: String, sub: String?, offset: String?) -> String {
        let d = date.split(whereSeparator: { !$0.isNumber }).map(String.init)
        var s = "\(d[0])-\(d[1])-\(d[2])T\(d[3]):\(d[4]):\(d[5])"
        if let sub, !sub.isEmpty { s += "." + sub }
        if let offset { s += offset }
        return s
    }

    /// "2025:05:26 09:27:06-05:00" → "2025-05-26T09:27:06-05:00".
    static func quickTime(_ text: String) -> String {
        let date = text.prefix(10).replacingOccurrences(of: ":", with: "-")
        return date + "T" + text.dropFirst(11)
    }
}

/// Reads a JPEG's stored size from its frame header.
enum JPEGHeader {
    static func size(_ bytes: [UInt8]) throws -> (width: Int, height: Int) {
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { break }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
            }
            i += 2 + length
        }
        throw MissingMedia(path: "a JPEG frame header")
    }
}
