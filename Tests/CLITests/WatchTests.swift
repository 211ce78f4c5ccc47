import Foundation
import Testing
import TestSupport

/// `camlib import --watch`: a folder filled as a phone's sync fills it. A file written
/// slowly, with pauses, is taken once whole; a Live Photo's movie that comes after its still joins it;
/// partial files wait for their real names and a rename after the import is left alone;
/// the folder removed and made again is watched again; a disk unmounted from the folder is
/// waited for until it is mounted again; SIGTERM stops it cleanly.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage), .serialized)
struct WatchTests {
    /// A running `camlib import --watch FOLDER --json`, and the lines it has printed.
    final class Watch {
        let process: Process
        let output: String

        init(library: String, folder: String, scratch: ScratchDirectory) throws {
            output = scratch.file("watch.jsonl")
            process = try WorkerCommandTests.start(
                ["import", "--library", library, "--watch", "--settle", "1", "--no-wait", "--json", folder], output: output)
        }

        var lines: [[String: Any]] {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// The lines about `name`.
        func about(_ name: String) -> [[String: Any]] {
            lines.filter { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent == name } ?? false }
        }

        /// Waits until `predicate` holds of the lines (up to 60 s).
        @discardableResult
        func waitFor(_ what: String, _ predicate: ([[String: Any]]) -> Bool) -> Bool {
            for _ in 0..<600 {
                if predicate(lines) { return true }
                usleep(100_000)
            }
            Issue.record("the watcher never said \(what): \(lines)")
            return false
        }

        func stop() -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func copy(_ relative: String, to folder: String, as name: String? = nil) throws -> String {
        let target = folder + "/" + (name ?? (relative as NSString).lastPathComponent)
        try FileManager.default.copyItem(atPath: Media.path(relative), toPath: target)
        return target
    }

    @Test func aFolderFilledAsAPhoneSyncsIsImportedAsItArrives() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("library")
        let folder = try scratch.subdirectory("Camera").path
        // One photo there before the watch starts: imported at once.
        _ = try Self.copy("orientation/Landscape_1.jpg", to: folder)
        let watch = try Watch(library: library, folder: folder, scratch: scratch)
        defer { _ = watch.stop() }
        watch.waitFor("the first photo") { _ in watch.about("Landscape_1.jpg").contains { $0["event"] as? String == "imported" } }

        // Written slowly, its writer pausing 1.5 s between pieces (longer than --settle)
        // with the file open: imported once, whole, after the writer closes it.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/Landscape_2.jpg")))
        let slow = folder + "/Landscape_2.jpg"
        FileManager.default.createFile(atPath: slow, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: slow))
        let pieces = 4
        for i in 0..<pieces {
            let range = (bytes.count * i / pieces)..<(bytes.count * (i + 1) / pieces)
            try handle.write(contentsOf: bytes[range])
            usleep(1_500_000)
            #expect(watch.about("Landscape_2.jpg").isEmpty, "taken while still being written")
        }
        try handle.close()
        watch.waitFor("the slow photo") { _ in !watch.about("Landscape_2.jpg").isEmpty }
        #expect(watch.about("Landscape_2.jpg").map { $0["event"] as? String } == ["imported"])

        // A Live Photo whose movie comes after its still.
        _ = try Self.copy("apple-live-photo/IMG_4394.HEIC", to: folder)
        watch.waitFor("the still") { _ in !watch.about("IMG_4394.HEIC").isEmpty }
        _ = try Self.copy("apple-live-photo/IMG_4394.mov", to: folder)
        watch.waitFor("the movie") { _ in !watch.about("IMG_4394.mov").isEmpty }
        let movie = try #require(watch.about("IMG_4394.mov").first)
        #expect(movie["paired"] as? Bool == true && movie["asset"] as? Int == watch.about("IMG_4394.HEIC").first?["asset"] as? Int, "\(movie)")

        // Partial files wait; renamed to their real names, they are new.
        let partial = try Self.copy("orientation/Landscape_3.jpg", to: folder, as: "Landscape_3.jpg.part")
        let syncthing = try Self.copy("orientation/Landscape_4.jpg", to: folder, as: ".syncthing.Landscape_4.jpg.tmp")
        _ = try Self.copy("orientation/Landscape_5.jpg", to: folder, as: "Landscape_5.jpg~")
        sleep(3)
        #expect(watch.lines.allSatisfy { !(($0["path"] as? String) ?? "").contains("Landscape_3") && !(($0["path"] as? String) ?? "").contains("Landscape_4") && !(($0["path"] as? String) ?? "").contains("Landscape_5") })
        #expect(rename(partial, folder + "/Landscape_3.jpg") == 0 && rename(syncthing, folder + "/Landscape_4.jpg") == 0)
        watch.waitFor("the renamed partial files") { _ in !watch.about("Landscape_3.jpg").isEmpty && !watch.about("Landscape_4.jpg").isEmpty }
        #expect(watch.about("Landscape_3.jpg").first?["event"] as? String == "imported")
        #expect(watch.about("Landscape_4.jpg").first?["event"] as? String == "imported")
        // A photo renamed after its import is left alone.
        #expect(rename(folder + "/Landscape_1.jpg", folder + "/Renamed.jpg") == 0)
        watch.waitFor("the rename") { _ in watch.about("Renamed.jpg").contains { $0["event"] as? String == "renamed" } }
        sleep(2)
        #expect(watch.about("Renamed.jpg").map { $0["event"] as? String } == ["renamed"])

        // The folder removed (as an unmounted card) and made again with a new photo in it.
        try FileManager.default.removeItem(atPath: folder)
        watch.waitFor("the folder gone") { $0.contains { $0["event"] as? String == "folderGone" } }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        _ = try Self.copy("orientation/Landscape_6.jpg", to: folder)
        watch.waitFor("the new photo in the folder made again") { _ in watch.about("Landscape_6.jpg").contains { $0["event"] as? String == "imported" } }
        #expect(watch.lines.contains { $0["event"] as? String == "folderBack" })

        // SIGTERM: stops cleanly, and says so.
        #expect(watch.stop() == 0)
        #expect(watch.lines.last?["event"] as? String == "stopped")
        let listed = try Camlib.run(["query", "--library", library, "--json"])
        let assets = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(assets.count == 6, "Landscape 1-4 and 6, the Live Photo: \(assets.count)")
        let verify = try Camlib.run(["verify", "--library", library])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// Whether this process may mount a file system (root, with CAP_SYS_ADMIN): a tmpfs
    /// mounted and unmounted on a folder of its own.
    static let canMount: Bool = {
        guard let scratch = try? ScratchDirectory(), let point = try? scratch.subdirectory("probe").path,
            (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", point]))?.status == 0
        else { return false }
        return (try? run("/bin/umount", [point]))?.status == 0
    }()

    /// A card mounted on the watched folder itself (as /media/USER/CARD is): unmounted, the
    /// bare folder left at its path is not the card back; mounted again, it is, and what is
    /// new on it is imported.
    @Test(.enabled(if: canMount, "mounting a file system needs root")) func aCardUnmountedFromTheWatchedFolderIsWaitedForUntilItIsBack() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("library")
        let card = try scratch.subdirectory("CARD").path
        func mount() throws { #expect(try run("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", card]).status == 0) }
        var mounted = false
        defer { if mounted { _ = try? run("/bin/umount", ["-l", card]) } }
        try mount()
        mounted = true
        _ = try Self.copy("orientation/Landscape_1.jpg", to: card)

        let watch = try Watch(library: library, folder: card, scratch: scratch)
        defer { _ = watch.stop() }
        watch.waitFor("the photo on the card") { _ in watch.about("Landscape_1.jpg").contains { $0["event"] as? String == "imported" } }

        #expect(try run("/bin/umount", [card]).status == 0)
        mounted = false
        watch.waitFor("the card gone") { $0.contains { $0["event"] as? String == "folderGone" } }
        sleep(3)
        #expect(!watch.lines.contains { $0["event"] as? String == "folderBack" }, "the bare mount point is not the card")

        try mount()
        mounted = true
        _ = try Self.copy("orientation/Landscape_2.jpg", to: card)
        watch.waitFor("the new photo on the card mounted again") { _ in watch.about("Landscape_2.jpg").contains { $0["event"] as? String == "imported" } }
        #expect(watch.lines.contains { $0["event"] as? String == "folderBack" })
        #expect(watch.stop() == 0)
        let listed = try Camlib.run(["query", "--library", library, "--json"])
        let assets = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(assets.count == 2)
    }
}
