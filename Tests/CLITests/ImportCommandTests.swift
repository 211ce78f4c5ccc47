import Foundation
import GRDB
import Testing
import TestSupport

/// Reads a library's catalog read-only, the way another program would.
func openCatalog(_ library: String) throws -> DatabaseQueue {
    var config = Configuration()
    config.readonly = true
    return try DatabaseQueue(path: library + "/catalog.sqlite", configuration: config)
}

struct ImportSummary: Decodable {
    struct Problem: Decodable { let path: String; let message: String }
    let files: Int
    let imported: Int
    let duplicates: Int
    let skipped: Int
    let errors: [Problem]
    let skippedFiles: [Problem]
    let assetsCreated: Int
    let livePhotosPaired: Int
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct ImportCommandTests {
    @Test func everyMalformedFileIsImportedOrGetsAOneLineErrorAndTheBatchGoesOn() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        let files = try Media.files(in: "malformed")
        let result = try Camlib.run(["import", "--library", library, "--json", Media.path("malformed")])
        #expect(!result.signaled, "camlib itself crashed: \(result.stderr)")
        #expect(result.status == 2, "a partly failed batch exits with 2")
        let summary = try JSONDecoder().decode(ImportSummary.self, from: Data(result.stdout.utf8))
        #expect(summary.files == files.count)

        let importedNames = Set(try openCatalog(library).read { db in
            try String.fetchAll(db, sql: "SELECT original_name FROM resource WHERE original_name IS NOT NULL")
        })
        let errorPaths = Dictionary(summary.errors.map { ($0.path, $0.message) }, uniquingKeysWith: { a, _ in a })
        let stderrLines = result.stderr.split(separator: "\n").map(String.init)
        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let imported = importedNames.contains(name)
            let error = errorPaths[file]
            // Its metadata read, a file is imported; one whose picture then cannot be
            // decoded is an error too, naming its asset (its thumbnail job failed).
            let undecodable = error?.hasPrefix("imported as asset ") == true && error?.contains(", but its thumbnail cannot be made: ") == true
            #expect(imported != (error != nil) || (imported && undecodable), "\(name) must be either imported or an error: \(error ?? "")")
            if let error {
                #expect(!error.isEmpty && !error.contains("\n"), "\(name): one line naming the cause")
                #expect(stderrLines.contains("camlib: \(file): \(error)"), "\(name): its error is on stderr")
            }
        }
        // The files other tools read fine are imported, not refused.
        for name in ["libexif__libexif-testsuite__1054321.jpg", "bigcat88__pillow_heif__invalid_id.heic",
                     "drewnoakes__metadata-extractor-images__Issue_437_dotnet_.heic", "photoprism__photoprism__animated-earth.jpg"] {
            #expect(importedNames.contains(name), "\(name) should import")
        }
        // libheif 1.19.7 aborts on this one when it reads it from its path (heif-info too);
        // from the bytes import has read, it says why instead.
        let corrupted = errorPaths[Media.path("malformed/bigcat88__pillow_heif__corrupted.heic")] ?? ""
        #expect(corrupted.hasPrefix("cannot read HEIF: ") && corrupted.contains("Insufficient input data"), "\(corrupted)")
        #expect(errorPaths[Media.path("malformed/bigcat88__pillow_heif__empty.heic")] == "the file is empty (0 bytes)")
    }

    @Test func exitStatusTellsACleanBatchFromAPartlyFailedOne() throws {
        let scratch = try ScratchDirectory()
        let clean = try Camlib.run(["import", "--library", scratch.file("a"), Media.path("orientation/Landscape_1.jpg")])
        #expect(clean.status == 0 && clean.stderr.isEmpty)
        #expect(clean.stdout.contains("Imported 1 of 1 files"))
        let partial = try Camlib.run([
            "import", "--library", scratch.file("b"), Media.path("orientation/Landscape_1.jpg"),
            Media.path("malformed/strukturag__libheif__github_47.heic"),
        ])
        #expect(partial.status == 2)
        #expect(partial.stderr.contains("strukturag__libheif__github_47.heic: not a HEIF file"))
        let again = try Camlib.run(["import", "--library", scratch.file("a"), Media.path("orientation/Landscape_1.jpg")])
        #expect(again.status == 0 && again.stdout.hasPrefix("Nothing new"))
    }

    @Test func aKilledImportLeavesAConsistentCatalog() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        let folders = ["apple-live-photo", "apple-misc", "apple-portrait-heic", "apple-portrait-jpeg", "android-depth-motion", "orientation"]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Camlib.path)
        p.arguments = ["import", "--library", library, "--jobs", "1"] + folders.map { Media.path($0) }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Kill it (SIGKILL: no cleanup) once some, but not all, assets are in.
        var seen = 0
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline {
            if FileManager.default.fileExists(atPath: library + "/catalog.sqlite") {
                seen = (try? openCatalog(library).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM asset") ?? 0 }) ?? 0
                if seen >= 6 { break }
            }
            usleep(5_000)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(seen >= 6, "the import finished before it could be killed")

        func check() throws -> Int {
            try openCatalog(library).read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
                for path in try String.fetchAll(db, sql: "SELECT path FROM resource") {
                    #expect(FileManager.default.fileExists(atPath: library + "/" + path), "row names a missing file: \(path)")
                }
                // Every asset has its still or movie; every pairing its two halves.
                #expect(try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM asset a WHERE NOT EXISTS
                    (SELECT 1 FROM resource r WHERE r.asset_id = a.id AND r.role IN ('photo', 'video', 'pairedVideo'))
                    """) == 0)
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM asset") ?? 0
            }
        }
        let afterKill = try check()
        #expect(afterKill >= 6)
        // What the kill left (a file published, its rows never committed) repair clears,
        // and verify then finds the library sound.
        let repaired = try Camlib.run(["repair", "--library", library])
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        let verified = try Camlib.run(["verify", "--library", library])
        #expect(verified.status == 0, "\(verified.stdout)")
        // Running the import again finishes the job.
        let resumed = try Camlib.run(["import", "--library", library] + folders.map { Media.path($0) })
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let complete = try check()
        let fresh = try Camlib.run(["import", "--library", scratch.file("fresh"), "--json"] + folders.map { Media.path($0) })
        let expected = try JSONDecoder().decode(ImportSummary.self, from: Data(fresh.stdout.utf8))
        #expect(complete == expected.assetsCreated)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: library + "/tmp")
        #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
        // No original was renamed aside a stray copy of itself (IMG_1234-2.HEIC): the
        // originals are named as a fresh import names them.
        let names = { (lib: String) in try FileManager.default.subpathsOfDirectory(atPath: lib + "/originals").sorted() }
        #expect(try names(library) == names(scratch.file("fresh")))
        #expect(try Camlib.run(["verify", "--library", library]).status == 0)
    }

    @Test func importingNothingIsAUsageError() throws {
        let result = try Camlib.run(["import", "--library", "/tmp/never-created-\(UUID().uuidString)"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("give at least one file or folder to import"))
    }

    @Test func aDryRunSaysWhatWouldBeImportedAndMakesNoLibrary() throws {
        let scratch = try ScratchDirectory()
        let temporary = try scratch.subdirectory("tmp")
        let lib = scratch.file("library")
        let folder = Media.path("apple-live-photo")
        // No library yet: the rehearsal runs on an empty one in TMPDIR, then gone.
        let dry = try Camlib.run(["import", "--dry-run", "--library", lib, folder], environment: ["TMPDIR": temporary.path])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Would import 10 of 10 files into \(lib): 3 new assets, 3 Live Photos would be paired"), "\(dry.stdout)")
        #expect(dry.stdout.contains("Nothing was changed (--dry-run)."))
        #expect(!FileManager.default.fileExists(atPath: lib), "a dry run made a library")
        let leftBefore = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(leftBefore.isEmpty, "the rehearsal's files are left: \(leftBefore)")
        // The real import then does what it said; a dry run again finds nothing new.
        let real = try Camlib.run(["import", "--library", lib, folder, "--json"])
        let summary = try JSONDecoder().decode(ImportSummary.self, from: Data(real.stdout.utf8))
        #expect(summary.assetsCreated == 3 && summary.livePhotosPaired == 3)
        let again = try Camlib.run(["import", "--dry-run", "--library", lib, folder, "--json"], environment: ["TMPDIR": temporary.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(object["dryRun"] as? Bool == true && object["duplicates"] as? Int == 10 && object["imported"] as? Int == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "the rehearsal's files are left: \(left)")
    }
}

/// XMP that would stop Foundation's XML parser (a name that is not UTF-8) is a warning.
struct MalformedXMPTests {
    @Test func anXMPNameThatIsNotUTF8IsAWarningNotACrash() throws {
        let scratch = try ScratchDirectory()
        let base = scratch.file("base.jpg")
        #expect(try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x48", "-frames:v", "1", base]).status == 0)
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: base)))
        let xml = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description><a"#.utf8)
            + [0xFF, 0xFE] + Array(#" b="1"/></rdf:Description></rdf:RDF></x:xmpmeta>"#.utf8)
        let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xml
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        let file = scratch.file("bad-xmp.jpg")
        try Data(jpeg).write(to: URL(fileURLWithPath: file))
        let r = try Camlib.run(["import", file, "--library", scratch.file("lib")])
        #expect(r.status == 0, "\(r.stderr)")
        let said = r.stdout + r.stderr
        #expect(said.contains("XMP unreadable") && said.contains("not valid UTF-8") && said.contains("1 new asset"), "\(said)")
        #expect(!said.contains("crashed"), "\(said)")
    }
}
