import Foundation
import GRDB
import Testing
import TestSupport

/// `camlib edit`, `revert` and `export` through the executable.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct EditCommandTests {
    /// A batch: a render job per asset, run by workers; an asset whose file cannot be
    /// decoded is named with its file and the cause, the others are edited; revert takes
    /// the same selections.
    @Test func aBatchEditsEveryAssetItCanAndNamesThoseItCannot() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let names = ["Landscape_1.jpg", "Landscape_2.jpg", "Landscape_3.jpg"]
        #expect(try Camlib.run(["import", "--library", lib] + names.map { Media.path("orientation/" + $0) }).status == 0)
        // Landscape_2's original damaged after import (its bytes zeroed).
        let original = try #require(try FileManager.default.subpathsOfDirectory(atPath: lib + "/originals").first { $0.hasSuffix("Landscape_2.jpg") })
        let path = lib + "/originals/" + original
        chmod(path, 0o644)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try Data(count: bytes.count).write(to: URL(fileURLWithPath: path))

        let rehearsed = try Camlib.run(["edit", "--library", lib, "--query", "--name", "Landscape_*", "--filter", "sepia", "--dry-run"])
        #expect(rehearsed.status == 0 && rehearsed.stdout.contains("Would edit 3 assets with sepia"), "\(rehearsed.stdout)\(rehearsed.stderr)")
        let batch = try Camlib.run(["edit", "--library", lib, "--query", "--name", "Landscape_*", "--filter", "sepia", "--jobs", "2", "--json"])
        #expect(batch.status == 2, "\(batch.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(batch.stdout.utf8)) as? [String: Any], "\(batch.stdout)")
        let assets = try #require(result["assets"] as? [[String: Any]])
        #expect(assets.count == 3)
        let failed = assets.filter { $0["state"] as? String == "failed" }
        #expect(failed.count == 1 && failed.first?["name"] as? String == "Landscape_2.jpg", "\(assets)")
        let error = failed.first?["error"] as? String ?? ""
        #expect(error.hasPrefix("render of asset ") && error.contains("Landscape_2.jpg"), "\(error)")
        #expect(batch.stderr.contains("camlib: \(error)"))
        #expect(assets.filter { $0["state"] as? String == "done" }.count == 2)

        // Named assets, one of them unknown: the others are reverted, exit status 2.
        let ids = assets.filter { $0["state"] as? String == "done" }.compactMap { ($0["asset"] as? NSNumber)?.stringValue }
        let reverted = try Camlib.run(["revert", "--library", lib] + ids + ["999"])
        #expect(reverted.status == 2 && reverted.stdout.contains("Reverted 2 of 2 assets."), "\(reverted.stdout)\(reverted.stderr)")
        #expect(reverted.stderr.contains("999"))
    }

    /// A plain edit is a render job this command runs itself: the job's row says what it
    /// made. Interrupted (SIGTERM, as Ctrl-C), it hands the job back, records nothing, and
    /// a worker finishes it later.
    @Test func anEditIsARenderJobThatAnInterruptionHandsBackToTheQueue() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let still = Media.path("orientation/Landscape_3.jpg"), live = Media.path("apple-live-photo/IMG_4394.HEIC")
        #expect(try Camlib.run(["import", "--library", lib, still, live, Media.path("apple-live-photo/IMG_4394.mov")]).status == 0)
        let catalog = try WorkerCommandTests.catalog(lib)
        let edited = try Camlib.run(["edit", "--library", lib, still, "--filter", "sepia", "--json"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(edited.stdout.utf8)) as? [String: Any])
        let rows = try catalog.read { db in try Row.fetchAll(db, sql: "SELECT kind, state, result, pid FROM job WHERE kind = 'render'") }
        #expect(rows.count == 1 && rows[0]["kind"] as String == "render" && rows[0]["state"] as String == "done", "\(rows)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data((rows.first?["result"] as String? ?? "").utf8)) as? [String: Any], "\(rows)")
        #expect((result["adjustmentId"] as? NSNumber) == (output["adjustmentId"] as? NSNumber) && result["adjustmentId"] != nil)
        #expect(result["renders"] as? [String] == output["renders"] as? [String])
        #expect(try catalog.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM worker") } == 0, "the edit's worker row stayed")

        // The Live Photo's render takes seconds: stopped while it runs. On a loaded machine
        // the render may end before the signal lands (the edit is then done and kept): it
        // is tried again with another filter.
        func adjustments() throws -> Int {
            try catalog.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM adjustment WHERE origin = 'camlib'") ?? 0 }
        }
        var finishedFirst = 0
        var interrupted: (status: Int32, said: String, recorded: Int)?
        for filter in ["comic", "noir", "mono"] where interrupted == nil {
            let recorded = try adjustments()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Camlib.path)
            process.arguments = ["edit", "--library", lib, live, "--filter", filter]
            let errors = scratch.file("errors-\(filter)")
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var running = false
            for _ in 0..<2400 where !running && process.isRunning {
                usleep(50_000)
                running = try catalog.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE kind = 'render' AND state = 'running'") } == 1
            }
            #expect(running, "the edit's job never ran")
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            if process.terminationReason == .exit && process.terminationStatus == 0 {
                finishedFirst += 1
                continue
            }
            interrupted = (process.terminationStatus, said, recorded)
        }
        let stopped = try #require(interrupted, "every edit ended before its signal")
        #expect(stopped.status == 130, "\(stopped.said)")
        let waiting = try catalog.read { db in try Row.fetchOne(db, sql: "SELECT id, state, attempt FROM job WHERE kind = 'render' ORDER BY id DESC") }
        #expect(stopped.said.contains("interrupted: the edit of asset") && stopped.said.contains("waits as job \(waiting?["id"] as Int64? ?? 0)"), "\(stopped.said)")
        #expect(waiting?["state"] as String? == "available" && waiting?["attempt"] as Int? == 0, "\(String(describing: waiting))")
        #expect(try adjustments() == stopped.recorded, "an interrupted edit recorded an adjustment")
        // No edit process is left behind, and a worker does the edit.
        #expect(WorkerCommandTests.children(of: lib).isEmpty)
        let worker = try Camlib.run(["worker", "--library", lib, "--until-idle"])
        #expect(worker.status == 0, "\(worker.stderr)")
        let after = try #require(try JSONSerialization.jsonObject(with: Data(try Camlib.run(["show", "--library", lib, live, "--json"]).stdout.utf8)) as? [String: Any])
        #expect((after["adjustments"] as? [[String: Any]])?.first?["data"] as? String ?? "" != "", "\(after)")
        // The edited movie (HEVC, as its original) got its browsers' copy from a job.
        let proxies = try catalog.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM job j JOIN resource r ON r.id = j.resource_id
                    WHERE j.kind = 'proxy' AND r.role = 'renderedVideo' AND j.state = 'done'
                    """)
        }
        #expect(proxies == 1 + finishedFirst)
        let verify = try Camlib.run(["verify", "--library", lib])
        #expect(verify.status == 0 && verify.stdout.contains("The library is sound"), "\(verify.stdout)\(verify.stderr)")
    }

    @Test func editRevertAndExportByQuery() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("orientation/Landscape_3.jpg"), Media.path("apple-misc/IMG_4120.JPG")]).status == 0)
        let photo = Media.path("orientation/Landscape_3.jpg")
        let bad = try Camlib.run(["edit", "--library", lib, photo, "--filter", "vignette:strength=7"])
        #expect(bad.status == 64 && bad.stderr.contains("strength=7 is outside 0...1"))
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
            == ["Landscape_3.jpg", "Landscape_E3.jpg", "Landscape_3.camlib.json", "IMG_4120.JPG", ".camlib-export.json"])
        #expect(try Camlib.run(["revert", "--library", lib, photo]).stdout.contains("original is current again"))
        #expect(try Camlib.run(["export", "--library", lib, "--to", out]).status == 64)
    }

    @Test func aStillTooLargeOrDamagedIsAClearErrorNamingTheAssetAndFile() throws {
        let scratch = try ScratchDirectory()
        // A JPEG whose header declares 60000x60000 (3600 megapixels) over a small picture:
        // importing reads its size and a scaled-down decode; an edit refuses it at once.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/Landscape_1.jpg"))))
        var i = 2
        while i + 9 < bytes.count {
            let marker = bytes[i + 1]
            if (0xC0...0xC2).contains(marker) {
                bytes.replaceSubrange((i + 5)..<(i + 9), with: [0xEA, 0x60, 0xEA, 0x60])
                break
            }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        let huge = scratch.file("huge.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: huge))
        // A HEIC cut in half after import, as a failing disk would leave it.
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, huge, Media.path("orientation/IMG_0102.HEIC")]).status == 0)
        let started = Date()
        let refused = try Camlib.run(["edit", "--library", lib, huge, "--filter", "mono"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("(huge.jpg): the photo is 60000x60000 (3600 megapixels); camlib renders stills of up to 200 megapixels"), "\(refused.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "refused only after decoding")
        let stored = try #require(try FileManager.default.subpathsOfDirectory(atPath: lib + "/originals").first { $0.hasSuffix("IMG_0102.HEIC") })
        let path = lib + "/originals/" + stored
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        let damaged = try Camlib.run(["edit", "--library", lib, path, "--filter", "mono"])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.hasPrefix("camlib: render of asset ") && damaged.stderr.contains(" (IMG_0102.HEIC): cannot read HEIF: decoding image item"), "\(damaged.stderr)")
        #expect(!damaged.stderr.contains("Error:"))
        // Nothing was recorded: no adjustment, no render.
        let shown = try Camlib.run(["show", "--library", lib, path, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect((json["adjustments"] as? [Any])?.isEmpty ?? true, "\(shown.stdout)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: lib + "/derived/renders"))?.isEmpty ?? true)
    }

    @Test func renderReferenceWritesTheUncompressedRenderInDisplayOrientation() throws {
        // bench/edit.py's quality figures compare renders with this.
        let scratch = try ScratchDirectory()
        let movie = scratch.file("movie"), still = scratch.file("still")
        let frames = try Camlib.run(["render-reference", Media.path("apple-live-photo/IMG_3582.mov"), "--filter", "mono", "--output", movie])
        #expect(frames.status == 0 && frames.stdout == "55\n", "\(frames.stderr)")
        let one = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", movie + "/frame-00055.png"])
        let shown = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", Media.path("apple-live-photo/IMG_3582.mov")])
        #expect(one.stdout.hasPrefix("1440,1920") && shown.stdout.hasPrefix("1920,1440"), "\(one.stdout) \(shown.stdout)")
        let photo = try Camlib.run(["render-reference", Media.path("orientation/Landscape_6.jpg"), "--filter", "comic", "--output", still])
        #expect(photo.status == 0 && photo.stdout == "1\n", "\(photo.stderr)")
        let size = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", still + "/still.png"])
        #expect(size.stdout.hasPrefix("1800,1200"), "\(size.stdout)")
        #expect(!(try Camlib.run(["--help"]).stdout.contains("render-reference")))
    }
}
