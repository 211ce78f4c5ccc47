import Foundation
import Testing
import TestSupport

/// `camlib aux list/extract/attach` and `camlib query --has`, through the executable.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxCommandTests {
    func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func listAndExtractWorkOnLibraryAssetsAndLooseFiles() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let heic = Media.path("apple-portrait-heic/heic_depth_data.heic")
        // A loose file: no library needed.
        let loose = try Camlib.run(["aux", "list", "--library", lib, heic, "--json"])
        #expect(loose.status == 0, "\(loose.stderr)")
        let looseAux = try json(loose.stdout)
        #expect(looseAux.count == 7)
        for aux in looseAux {
            for key in ["type", "urn", "width", "height", "bitDepth", "path"] { #expect(aux.keys.contains(key), "missing \(key)") }
            #expect(aux["path"] is NSNull)
        }
        // The same file in a library: each has its PNG.
        #expect(try Camlib.run(["import", "--library", lib, Media.path("apple-portrait-heic")]).status == 0)
        let listed = try json(try Camlib.run(["aux", "list", "--library", lib, heic, "--json"]).stdout)
        #expect(Set(listed.map { $0["type"] as! String }) == Set(looseAux.map { $0["type"] as! String }))
        #expect(listed.allSatisfy { ($0["path"] as? String).map(FileManager.default.fileExists) == true })
        let disparity = try #require(listed.first { $0["type"] as? String == "disparity" })
        let encoding = try #require(disparity["encoding"] as? [String: Any])
        #expect(encoding["units"] as? String == "1/m" && encoding["floatMax"] as? Double == 3.767578)

        let out = scratch.file("out")
        let extract = try Camlib.run(["aux", "extract", "--library", lib, heic, "--type", "portrait-matte", "--type", "depth", "--out", out])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["disparity.png", "portraitEffectsMatte.png"])
        // Existing files are not replaced: a partial failure, said per file.
        let again = try Camlib.run(["aux", "extract", "--library", lib, heic, "--type", "depth", "--out", out])
        #expect(again.status == 2 && again.stderr.contains("already exists"))
        #expect(try Camlib.run(["aux", "extract", "--library", lib, heic, "--type", "depth", "--out", out, "--force"]).status == 0)
        // The derived PNGs are rebuilt from the original when derived/ is gone.
        try FileManager.default.removeItem(atPath: scratch.file("lib/derived/aux"))
        let rebuilt = try Camlib.run(["aux", "extract", "--library", lib, heic, "--out", scratch.file("rebuilt")])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("rebuilt")).count == 7)
        #expect(FileManager.default.contents(atPath: scratch.file("rebuilt/disparity.png")) == FileManager.default.contents(atPath: out + "/disparity.png"))
    }

    @Test func queryHasAndJSONCarryAux() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("apple-portrait-jpeg"), Media.path("android-depth-motion")]).status == 0)
        let motion = try json(try Camlib.run(["query", "--library", lib, "--has", "motion", "--json"]).stdout)
        #expect(motion.count == 4 && motion.allSatisfy { $0["kind"] as? String == "motion" })
        let matte = try json(try Camlib.run(["query", "--library", lib, "--has", "portrait-matte", "--json"]).stdout)
        #expect(matte.count == 1)
        let aux = try #require(matte.first?["aux"] as? [[String: Any]])
        #expect(Set(aux.map { $0["type"] as! String }) == ["disparity", "portraitEffectsMatte"])
        let bad = try Camlib.run(["query", "--library", lib, "--has", "wings"])
        #expect(bad.status == 64 && bad.stderr.contains("portrait-matte"))
    }

    @Test func attachNeedsAnOutputForALooseFileAndWritesOne() throws {
        let scratch = try ScratchDirectory()
        let png = scratch.file("d/disparity.png")
        #expect(try Camlib.run(["aux", "extract", "--library", scratch.file("none"), Media.path("apple-portrait-heic/pug.heic"), "--type", "disparity", "--out", scratch.file("d")]).status == 0)
        let target = Media.path("apple-misc/iphone_7.heic")
        let missing = try Camlib.run(["aux", "attach", "--library", scratch.file("none"), target, "--type", "depth", "--from", png])
        #expect(missing.status == 64 && missing.stderr.contains("--out"))
        let out = scratch.file("new.heic")
        let attach = try Camlib.run(["aux", "attach", "--library", scratch.file("none"), target, "--type", "depth", "--from", png, "--out", out, "--json"])
        #expect(attach.status == 0, "\(attach.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(attach.stdout.utf8)) as? [String: Any])
        #expect(result["maxError"] as? Int == 0 && result["urn"] as? String == "urn:mpeg:hevc:2015:auxid:2")
        let list = try json(try Camlib.run(["aux", "list", "--library", scratch.file("none"), out, "--json"]).stdout)
        #expect(list.map { $0["type"] as! String } == ["depth"])
    }

    @Test func attachingToALibraryAssetWithDistancesIsAVersionShowSpellsOut() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let png = scratch.file("d/disparity.png")
        #expect(try Camlib.run(["aux", "extract", "--library", lib, Media.path("apple-portrait-heic/pug.heic"), "--type", "disparity", "--out", scratch.file("d")]).status == 0)
        #expect(try Camlib.run(["import", "--library", lib, Media.path("apple-misc/iphone_7.heic")]).status == 0)
        let half = try Camlib.run(["aux", "attach", "--library", lib, "1", "--type", "depth", "--from", png, "--z-near", "0.5"])
        #expect(half.status == 64 && half.stderr.contains("--z-far"))
        let attach = try Camlib.run(["aux", "attach", "--library", lib, "1", "--type", "depth", "--from", png, "--z-near", "0.5", "--z-far", "9"])
        #expect(attach.status == 0, "\(attach.stderr)")
        let list = try Camlib.run(["aux", "list", "--library", lib, "1"]).stdout
        #expect(list.contains("0.5–9 m"), "\(list)")
        let shown = try Camlib.run(["show", "--library", lib, "1"]).stdout
        #expect(shown.contains("current  org.camlib.filters 2") && shown.contains("attached depth (0.5–9 m)"), "\(shown)")
        #expect(try Camlib.run(["revert", "--library", lib, "1"]).status == 0)
        #expect(try Camlib.run(["aux", "list", "--library", lib, "1"]).stdout.contains("No auxiliary images."))

        // The photo's own file outside the library, whose bytes the library holds, is
        // changed as that file: into --out, the library left as it was.
        let out = scratch.file("outside.heic")
        let outside = try Camlib.run(
            ["aux", "attach", "--library", lib, Media.path("apple-misc/iphone_7.heic"), "--type", "depth", "--from", png, "--out", out])
        #expect(outside.status == 0 && FileManager.default.fileExists(atPath: out), "\(outside.stderr)")
        let versions = try Camlib.run(["show", "--library", lib, "1"]).stdout
        #expect(versions.contains("current  org.camlib.filters") == false, "\(versions)")
        #expect(try Camlib.run(["aux", "list", "--library", lib, "1"]).stdout.contains("No auxiliary images."))
        let withoutOut = try Camlib.run(["aux", "attach", "--library", lib, Media.path("apple-misc/iphone_7.heic"), "--type", "depth", "--from", png])
        #expect(withoutOut.status == 64 && withoutOut.stderr.contains("--out"), "\(withoutOut.stderr)")
    }

    @Test func aFileThatCrashesLibheifIsAnErrorNotACrash() throws {
        // libheif 1.19.7 asserts on this file when it reads it from disk (camlib reads
        // single files in a child process, in case); read from memory it is an error.
        // Either way: one line naming the file, exit status 1.
        let damaged = ["malformed/bigcat88__pillow_heif__corrupted.heic", "malformed/strukturag__libheif__github_46_1.heic"]
        for file in damaged.map(Media.path) {
            for arguments in [["aux", "list", file], ["aux", "extract", file, "--out", try ScratchDirectory().path]] {
                let result = try Camlib.run(arguments + ["--library", "/nonexistent/camlib-library"])
                #expect(!result.signaled && result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("\(file): "), "\(result.stderr)")
            }
        }
    }
}
