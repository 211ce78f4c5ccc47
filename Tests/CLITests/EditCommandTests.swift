import Foundation
import Testing
import TestSupport

/// `camlib edit`, `revert` and `export` through the executable.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct EditCommandTests {
    @Test func editRevertAndExportByQuery() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("orientation/Landscape_3.jpg"), Media.path("apple-misc/IMG_4120.JPG")]).status == 0)
        let photo = Media.path("orientation/Landscape_3.jpg")
        let bad = try Camlib.run(["edit", "--library", lib, photo, "--filter", "vignette:strength=7"])
        #expect(bad.status == 64 && bad.stderr.contains("strength=7.0 is outside"))
        let edit = try Camlib.run(["edit", "--library", lib, photo, "--filter", "posterize:levels=4", "--json"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(edit.stdout.utf8)) as? [String: Any])
        #expect((result["renders"] as? [String])?.count == 1)
        // The recipe is data, each step with every parameter.
        let recipe = try #require(result["recipe"] as? [String: Any], "\(edit.stdout)")
        let steps = try #require(recipe["steps"] as? [[String: Any]])
        #expect(steps.count == 1 && steps[0]["name"] as? String == "posterize")
        #expect((steps[0]["parameters"] as? [String: Double]) == ["levels": 4])
        #expect((recipe["attachments"] as? [String]) == [])
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(try Camlib.run(["show", "--library", lib, photo, "--json"]).stdout.utf8)) as? [String: Any])
        let adjustments = try #require(shown["adjustments"] as? [[String: Any]])
        #expect(adjustments.count == 1 && adjustments[0]["current"] as? Bool == true)
        for key in ["formatIdentifier", "formatVersion", "data", "createdAt", "current"] { #expect(adjustments[0].keys.contains(key)) }

        let out = scratch.file("out")
        let export = try Camlib.run(["export", "--library", lib, "--query", "--name", "*.jpg", "--to", out, "--json"])
        #expect(export.status == 0, "\(export.stderr)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [[String: Any]])
        #expect(exported.count == 2)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out))
            == ["Landscape_3.jpg", "Landscape_E3.jpg", "Landscape_3.camlib.json", "IMG_4120.JPG"])
        #expect(try Camlib.run(["revert", "--library", lib, photo]).stdout.contains("original is current again"))
        #expect(try Camlib.run(["export", "--library", lib, "--to", out]).status == 64)
    }
}
