import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

/// A library with the Live Photo folder and the orientation set, imported once by the CLI.
final class QueryFixture: Sendable {
    private static let cache = Mutex<QueryFixture?>(nil)
    let scratch: ScratchDirectory
    var library: String { scratch.file("lib") }

    static func shared() throws -> QueryFixture {
        try cache.withLock { cached in
            if let cached { return cached }
            let made = try QueryFixture()
            cached = made
            return made
        }
    }

    private init() throws {
        scratch = try ScratchDirectory.shared("camlib-cli")
        let result = try Camlib.run(["import", "--library", scratch.file("lib"), Media.path("apple-live-photo"), Media.path("orientation")])
        guard result.status == 0 else { throw MissingMedia(path: "import failed: \(result.stderr)") }
    }

    func query(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try Camlib.run(["query", "--library", library, "--json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
    }
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct QueryCommandTests {
    @Test func jsonKeepsTheContractNamesWithExplicitNulls() throws {
        let assets = try QueryFixture.shared().query([])
        #expect(assets.count == 3 + 25)  // 3 Live Photos (and IMG_3582's rendered edit), 25 files in orientation/
        let contract = ["id", "kind", "capturedAt", "make", "model", "width", "height", "orientation", "contentIdentifier", "pairing", "resources"]
        let roles: Set<String> = ["photo", "pairedVideo", "video", "thumbnail", "adjustmentSidecar", "renderedPhoto", "renderedVideo"]
        for asset in assets {
            for key in contract { #expect(asset.keys.contains(key), "missing \(key)") }
            for resource in asset["resources"] as! [[String: Any]] {
                let path = resource["path"] as! String
                #expect(path.hasPrefix("/") && FileManager.default.fileExists(atPath: path))
                #expect((resource["sha256"] as! String).count == 64)
                #expect(resource["bytes"] is Int && resource["mime"] is String)
                #expect(roles.contains(resource["role"] as! String))
            }
        }
        let landscape = try #require(assets.first { ($0["resources"] as! [[String: Any]]).contains { ($0["originalName"] as? String) == "Landscape_0.jpg" } })
        #expect(landscape["contentIdentifier"] is NSNull && landscape["pairing"] is NSNull && landscape["make"] is NSNull)
        let live = try #require(assets.first { $0["contentIdentifier"] as? String == "602FEBB7-6B59-4799-96E6-9C8484D873C7" })
        #expect(live["kind"] as? String == "live" && live["capturedAt"] as? String == "2025-05-26T09:27:06.603-05:00")
        #expect((live["pairing"] as? [String: Any])?["rule"] as? String == "contentIdentifier")
        #expect(live["width"] as? Int == 4284 && live["height"] as? Int == 5712 && live["orientation"] as? Int == 6)
        // Facts of the movie and the still together: codecs from the movie, location from the still.
        #expect(live["videoCodec"] as? String == "hevc" && live["audioCodec"] as? String == "pcm_s16le")
        let location = try #require(live["location"] as? [String: Double])
        #expect(abs(location["altitude"]! - 197.0945) < 0.001 && abs(location["longitude"]! + 86.4703833) < 1e-6)
    }

    @Test func filtersCombine() throws {
        let f = try QueryFixture.shared()
        #expect(try f.query(["--kind", "live"]).count == 3)  // IMG_3582_edited.* are IMG_3582's edit
        #expect(try f.query(["--kind", "live", "--model", "iphone 15"]).count == 2)
        #expect(try f.query(["--make", "apple", "--since", "2025-01-01"]).count == 2)
        #expect(try f.query(["--until", "2019-12-29"]).count == 1)
        #expect(try f.query(["--paired-by", "contentIdentifier"]).count == 3)
        #expect(try f.query(["--paired-by", "none"]).count == 25)
        #expect(try f.query(["--name", "landscape_?.JPG"]).count == 9)
        let sorted = try f.query(["--kind", "live", "--sort", "captured", "--reverse", "--limit", "2"])
        #expect(sorted.map { $0["capturedAt"] as? String } == ["2025-08-06T17:14:22.332-05:00", "2025-05-26T09:27:06.603-05:00"])
    }

    @Test func csvHasAHeaderAndOneRowPerAsset() throws {
        let f = try QueryFixture.shared()
        let result = try Camlib.run(["query", "--library", f.library, "--csv", "--kind", "live"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("id,kind,capturedAt,make,model,width,height") == true)
        #expect(lines.count == 4)
    }

    @Test func theTableIsReadable() throws {
        let f = try QueryFixture.shared()
        let result = try Camlib.run(["query", "--library", f.library, "--kind", "live"])
        #expect(result.stdout.hasPrefix("ID  KIND"))
        #expect(result.stdout.contains("IMG_3582.HEIC") && result.stdout.hasSuffix("3 assets\n"))
    }

    @Test func showFindsAnAssetByIdByLibraryPathOrByAFileElsewhere() throws {
        let f = try QueryFixture.shared()
        let byFile = try Camlib.run(["show", "--library", f.library, "--json", Media.path("apple-live-photo/IMG_3582.mov")])
        #expect(byFile.status == 0, "\(byFile.stderr)")
        let asset = try JSONSerialization.jsonObject(with: Data(byFile.stdout.utf8)) as! [String: Any]
        let id = asset["id"] as! Int
        let stillPath = (asset["resources"] as! [[String: Any]]).first { $0["role"] as? String == "photo" }!["path"] as! String
        let byPath = try Camlib.run(["show", "--library", f.library, "--json", stillPath])
        let byID = try Camlib.run(["show", "--library", f.library, "--json", String(id)])
        #expect(byPath.stdout == byFile.stdout && byID.stdout == byFile.stdout)
        let text = try Camlib.run(["show", "--library", f.library, String(id)])
        #expect(text.stdout.contains("Paired by   contentIdentifier") && text.stdout.contains("adjustmentSidecar"))
        let missing = try Camlib.run(["show", "--library", f.library, "99999"])
        #expect(missing.status == 1 && missing.stderr.contains("no asset with id 99999"))
    }

    @Test func readersExplainAMissingLibraryAndBadDates() throws {
        let missing = try Camlib.run(["query", "--library", "/tmp/no-such-library-\(UUID().uuidString)"])
        #expect(missing.status == 1 && missing.stderr.contains("no camlib library at"))
        let badDate = try Camlib.run(["query", "--library", "/tmp", "--since", "yesterday-ish"])
        #expect(badDate.status == 64 && badDate.stderr.contains("--since yesterday-ish: not a date"))
    }

    @Test func helpExplainsTheCommands() throws {
        let top = try Camlib.run(["--help"])
        for word in ["import", "query", "show", "CAMLIB_LIBRARY"] { #expect(top.stdout.contains(word)) }
        #expect(!top.stdout.contains("analyze-worker"))
        // Words, whatever the line wrapping.
        let importHelp = try Camlib.run(["import", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["Live Photo", "content identifier", "Exit status", "--json"] { #expect(importHelp.contains(phrase), "\(phrase)") }
    }

    @Test func helpTextIsWrappedToTheScreen() throws {
        // Paragraphs reflow to 80 columns: no line past it (but the usage line), and no
        // word left alone on a line by a source line that was a little too long.
        let commands = [[], ["import"], ["query"], ["show"], ["edit"], ["revert"], ["export"], ["capture"], ["devices"],
                        ["aux"], ["aux", "list"], ["aux", "extract"], ["aux", "attach"]]
        for command in commands {
            let help = try Camlib.run(command + ["--help"]).stdout
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (i, line) in lines.enumerated() where !line.hasPrefix("USAGE") {
                #expect(line.count <= 80, "\(command): \(line)")
                // A lone word with its paragraph going on below it.
                let lone = line.split(separator: " ").count == 1 && line.first?.isLowercase == true
                let next = i + 1 < lines.count ? lines[i + 1] : ""
                #expect(!(lone && next.first?.isLetter == true), "\(command): '\(line)' then '\(next)'")
            }
        }
    }
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct QueryPagingTests {
    /// Pages through a library by cursor, page after page, while another process imports
    /// into it: every asset that was there before is listed exactly once, and no asset twice.
    @Test func pagingListsEveryAssetOnceWhileAnotherProcessImports() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        let first = try Camlib.run(["import", "--library", library, Media.path("orientation"), Media.path("apple-portrait-jpeg")])
        #expect(first.status == 0, "\(first.stderr)")
        func ids(_ arguments: [String]) throws -> [(id: Int, cursor: String)] {
            let result = try Camlib.run(["query", "--library", library, "--json"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let assets = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
            return assets.map { ($0["id"] as! Int, $0["cursor"] as! String) }
        }
        let before = Set(try ids([]).map(\.id))
        #expect(before.count == 27)

        let importer = Process()
        importer.executableURL = URL(fileURLWithPath: Camlib.path)
        importer.arguments = ["import", "--library", library, "--jobs", "1"]
            + ["apple-live-photo", "apple-misc", "apple-portrait-heic", "android-depth-motion"].map { Media.path($0) }
        importer.standardOutput = FileHandle.nullDevice
        importer.standardError = FileHandle.nullDevice
        try importer.run()
        // Start once the import has committed something, so pages and commits interleave.
        let catalog = try openCatalog(library)
        let deadline = Date().addingTimeInterval(60)
        while try catalog.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM asset")! }) == before.count, importer.isRunning,
            Date() < deadline
        {
            usleep(20_000)
        }
        var listed: [Int] = []
        var pagesDuringImport = 0
        var after: [String] = []
        while true {
            let running = importer.isRunning
            let page = try ids(["--limit", "2"] + after)
            if running { pagesDuringImport += 1 }
            listed += page.map(\.id)
            guard page.count == 2, let last = page.last else { break }
            after = ["--after", last.cursor]
        }
        importer.waitUntilExit()
        #expect(importer.terminationStatus == 0)
        #expect(pagesDuringImport >= 2, "the import ended before paging overlapped it")
        #expect(Set(listed).count == listed.count, "an asset was listed twice: \(listed)")
        #expect(before.isSubset(of: Set(listed)), "missing: \(before.subtracting(listed).sorted())")
        #expect(try ids([]).count > before.count)
    }

    @Test func aTableCutByItsLimitSaysWhereToGoOn() throws {
        let f = try QueryFixture.shared()
        let first = try Camlib.run(["query", "--library", f.library, "--limit", "2"])
        let footer = try #require(first.stdout.split(separator: "\n").last)
        #expect(footer.hasPrefix("2 assets; more: --after "))
        let cursor = String(footer.split(separator: " ").last!)
        let next = try f.query(["--limit", "2", "--after", cursor])
        let both = try f.query(["--limit", "4"])
        #expect(next.map { $0["id"] as! Int } == both.suffix(2).map { $0["id"] as! Int })
        // The last page says nothing more.
        let all = try Camlib.run(["query", "--library", f.library, "--limit", "1000"])
        #expect(all.stdout.hasSuffix("28 assets\n"))
        // A cursor of another order is refused, with the order it needs.
        let wrong = try Camlib.run(["query", "--library", f.library, "--sort", "name", "--after", cursor])
        #expect(wrong.status == 64 && wrong.stderr.contains("give --sort captured with it"), "\(wrong.stderr)")
        let garbage = try Camlib.run(["query", "--library", f.library, "--after", "nonsense"])
        #expect(garbage.status == 64 && garbage.stderr.contains("not a cursor"))
    }
}
