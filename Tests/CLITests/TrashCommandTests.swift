import Foundation
import Testing
import TestSupport

/// `camlib trash` and `camlib restore` through the executable, as a user runs them.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct TrashCommandTests {
    @Test func trashRestoreAndEmpty() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let photo = Media.path("orientation/Landscape_1.jpg")
        #expect(try Camlib.run(["import", "--library", lib, photo, Media.path("apple-misc/IMG_2682.heic")]).status == 0)
        func ids(_ extra: [String] = []) throws -> [Int] {
            let result = try Camlib.run(["query", "--library", lib, "--sort", "id", "--json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let assets = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            return assets.compactMap { $0["id"] as? Int }
        }
        #expect(try ids() == [1, 2])

        let trashed = try Camlib.run(["trash", "--library", lib, photo])
        #expect(trashed.status == 0 && trashed.stdout.contains("Moved 1 asset to the trash."), "\(trashed.stdout)\(trashed.stderr)")
        #expect(try ids() == [2])
        #expect(try ids(["--trashed"]) == [1])
        let listing = try Camlib.run(["trash", "--library", lib, "--list"])
        #expect(listing.stdout.hasPrefix("ID  TRASHED") && listing.stdout.contains("Landscape_1.jpg") && !listing.stdout.contains("IMG_2682"), "\(listing.stdout)")
        let json = try Camlib.run(["query", "--library", lib, "--trashed", "--json"])
        #expect(json.stdout.contains("\"trashedAt\""))
        #expect(try Camlib.run(["show", "--library", lib, "1"]).stdout.contains("camlib restore 1"))
        let edit = try Camlib.run(["edit", "--library", lib, "1", "--filter", "mono"])
        #expect(edit.status != 0 && edit.stderr.contains("asset 1 is in the trash") && edit.stderr.contains("camlib restore 1"), "\(edit.stderr)")
        // Importing its file again finds it, and says where.
        let again = try Camlib.run(["import", "--library", lib, photo])
        #expect(again.status == 0 && again.stdout.contains("In the trash") && again.stdout.contains("camlib restore 1"), "\(again.stdout)")

        let restored = try Camlib.run(["restore", "--library", lib, "1", "2", "--json"])
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(restored.stdout.utf8)) as? [[String: Any]], "\(restored.stdout)")
        #expect(changes.map { $0["outcome"] as? String } == ["restored", "notInTrash"])
        #expect(try ids() == [1, 2])

        let original = try Self.originalPath(lib, asset: 1)
        #expect(try Camlib.run(["trash", "--library", lib, "--query", "--name", "landscape_*"]).status == 0)
        let dry = try Camlib.run(["trash", "--library", lib, "--empty", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("Would delete 1 asset") && FileManager.default.fileExists(atPath: original), "\(dry.stdout)")
        // Not on a terminal: no question asked.
        let emptied = try Camlib.run(["trash", "--library", lib, "--empty", "--json"])
        #expect(emptied.status == 0, "\(emptied.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(emptied.stdout.utf8)) as? [String: Any])
        #expect(report["assets"] as? [Int] == [1] && (report["files"] as? Int ?? 0) >= 2)
        #expect(!FileManager.default.fileExists(atPath: original))
        #expect(try ids() == [2] && ids(["--trashed"]) == [])
        #expect(try Camlib.run(["trash", "--library", lib, "--empty"]).stdout.contains("The trash is empty."))
        #expect(try Camlib.run(["trash", "--library", lib, "--list"]).stdout == "No assets in the trash.\n")
        // Nothing left behind that verify would find; a stray file it does find.
        let sound = try Camlib.run(["verify", "--library", lib])
        #expect(sound.status == 0 && sound.stdout.hasPrefix("The library is sound"), "\(sound.stdout)\(sound.stderr)")
        try Data("x".utf8).write(to: URL(fileURLWithPath: lib + "/originals/stray.jpg"))
        let found = try Camlib.run(["verify", "--library", lib, "--quick", "--json"])
        let verdict = try #require(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any])
        #expect(found.status == 2 && verdict["sound"] as? Bool == false, "\(found.stdout)")
        #expect((verdict["problems"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["unknown"])
    }

    @Test func mistakesAreExplained() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let cases: [([String], String)] = [
            (["trash"], "name assets to trash"),
            (["trash", "1", "--empty"], "use one of"),
            (["trash", "--empty", "--older-than", "30x"], "not an age"),
            (["trash", "1", "--dry-run"], "go with --empty"),
            (["restore"], "name assets to restore, or use --all"),
        ]
        for (arguments, message) in cases {
            let result = try Camlib.run(arguments + ["--library", lib])
            #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // One asset not found: said, and the others go on.
        let missing = try Camlib.run(["trash", "--library", lib, "7", "1"])
        #expect(missing.status == 2 && missing.stderr.contains("7: no asset with id 7"), "\(missing.stderr)")
        #expect(missing.stdout.contains("Moved 1 asset to the trash."), "\(missing.stdout)")
    }

    static func originalPath(_ lib: String, asset: Int) throws -> String {
        let shown = try Camlib.run(["show", "--library", lib, String(asset), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let resources = try #require(object["resources"] as? [[String: Any]])
        return try #require(resources.first { $0["role"] as? String == "photo" }?["path"] as? String)
    }
}
