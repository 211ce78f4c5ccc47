import Foundation
import Testing
import TestSupport

/// `camlib favorite`, `album` and `keyword`, and the query filters that find what they mark.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct OrganiseCommandTests {
    @Test func markFileAndFind() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let live = Media.path("apple-live-photo/IMG_4394.HEIC")
        #expect(try Camlib.run(["import", "--library", lib, live, Media.path("apple-live-photo/IMG_4394.mov"), Media.path("orientation/Landscape_1.jpg")]).status == 0)
        func ids(_ filters: [String]) throws -> [Int] {
            let result = try Camlib.run(["query", "--library", lib, "--sort", "id", "--json"] + filters)
            #expect(result.status == 0, "\(filters): \(result.stderr)")
            let assets = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            return assets.compactMap { $0["id"] as? Int }
        }
        #expect(try Camlib.run(["favorite", "--library", lib, live]).stdout == "1 asset marked as a favourite.\n")
        #expect(try Camlib.run(["album", "create", "--library", lib, "Huntsville"]).status == 0)
        let added = try Camlib.run(["album", "add", "--library", lib, "Huntsville", "2", "1", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        #expect(object["added"] as? [Int] == [2, 1])
        #expect(try Camlib.run(["keyword", "add", "--library", lib, "rocket", "1"]).status == 0)
        #expect(try ids(["--favorite"]) == [1])
        #expect(try ids(["--album", "Huntsville"]) == [1, 2])
        #expect(try ids(["--keyword", "rocket", "--album", "Huntsville"]) == [1])
        #expect(try ids(["--album", "Nowhere"]) == [])
        // IMG_4394 was taken in Huntsville, Alabama (34.7309, -86.5871).
        #expect(try ids(["--near", "34.73,-86.58", "--within", "5km"]) == [1])
        #expect(try ids(["--near", "48.8584,2.2945", "--within", "5km"]) == [])
        let shown = try Camlib.run(["show", "--library", lib, "1"]).stdout
        #expect(shown.contains("Favorite    yes") && shown.contains("Albums      Huntsville") && shown.contains("Keywords    rocket"), "\(shown)")
        let listed = try Camlib.run(["album", "list", "--library", lib, "Huntsville"]).stdout
        #expect(listed.hasPrefix("Huntsville: 2 assets, cover 2") && listed.contains("Landscape_1.jpg"), "\(listed)")
        let delete = try Camlib.run(["album", "delete", "--library", lib, "Huntsville"])
        #expect(delete.status == 1 && delete.stderr.contains("holds 2 assets"), "\(delete.stderr)")
        let renamed = try Camlib.run(["album", "rename", "--library", lib, "Huntsville", "Rocket City", "--json"])
        #expect(renamed.stdout.contains(#""name" : "Rocket City""#) && renamed.stdout.contains(#""assets" : 2"#), "\(renamed.stdout)")
        let deleted = try Camlib.run(["album", "delete", "--library", lib, "Rocket City", "--even-if-not-empty", "--json"])
        #expect(deleted.status == 0 && deleted.stdout.contains(#""assetsKept" : 2"#), "\(deleted.stdout)\(deleted.stderr)")
        #expect(try Set([1, 2]).isSubset(of: ids([])), "its assets stay")
        let badPlace = try Camlib.run(["query", "--library", lib, "--near", "north"])
        #expect(badPlace.status == 64 && badPlace.stderr.contains("not a place"))
    }
}
