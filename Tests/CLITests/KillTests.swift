import Foundation
import Testing
import TestSupport

/// Commands killed (SIGKILL: no cleanup) at any moment leave a library that `repair`
/// brings back to sound, and an export that running it again completes.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct KillTests {
    /// Runs camlib, kills it after `delay` seconds if it still runs; whether it did.
    static func runKilled(_ arguments: [String], after delay: TimeInterval) throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Camlib.path)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date(timeIntervalSinceNow: delay)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        let killed = p.isRunning
        if killed { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return killed
    }

    @Test func aKilledEditIsRepairedToSound() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("apple-live-photo/IMG_4394.HEIC"), Media.path("apple-live-photo/IMG_4394.mov")]).status == 0)
        var kills = 0
        for delay in [0.5, 1.5, 3.0, 6.0] {
            if try Self.runKilled(["edit", "--library", lib, "1", "--filter", "mono"], after: delay) { kills += 1 }
            let repaired = try Camlib.run(["repair", "--library", lib])
            #expect(repaired.status == 0, "after \(delay) s: \(repaired.stdout)\(repaired.stderr)")
            let verified = try Camlib.run(["verify", "--library", lib])
            #expect(verified.status == 0, "after \(delay) s: \(verified.stdout)")
        }
        #expect(kills > 0, "every edit finished before it could be killed")
        let edit = try Camlib.run(["edit", "--library", lib, "1", "--filter", "mono"])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(try Camlib.run(["verify", "--library", lib]).status == 0)
    }

    @Test func aKilledExportIsCompletedByRunningItAgain() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let folders = ["apple-live-photo", "apple-misc", "orientation"]
        #expect(try Camlib.run(["import", "--library", lib] + folders.map { Media.path($0) }).status == 0)
        let whole = scratch.file("whole")
        #expect(try Camlib.run(["export", "--library", lib, "--query", "--to", whole]).status == 0)
        let expected = try FileManager.default.contentsOfDirectory(atPath: whole).sorted()
        var kills = 0
        for (i, delay) in [0.2, 0.4, 0.8].enumerated() {
            let out = scratch.file("out\(i)")
            if try Self.runKilled(["export", "--library", lib, "--query", "--to", out], after: delay) { kills += 1 }
            let again = try Camlib.run(["export", "--library", lib, "--query", "--to", out])
            #expect(again.status == 0, "\(again.stderr)")
            // The same files as an export never killed: none left half-written, none twice.
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == expected, "killed after \(delay) s")
        }
        #expect(kills > 0, "every export finished before it could be killed")
    }

    /// An import killed at any moment, then run again: the originals it had placed but not
    /// recorded are adopted, never stored again as `NAME-2`, and the library is sound
    /// without a repair.
    @Test func aKilledImportRunAgainAdoptsWhatItLeft() throws {
        let scratch = try ScratchDirectory()
        let folders = ["apple-live-photo", "apple-misc", "orientation"].map { Media.path($0) }
        var kills = 0
        for (i, delay) in [0.3, 0.6, 0.9, 1.2, 1.6, 2.0].enumerated() {
            let lib = scratch.file("lib\(i)")
            if try Self.runKilled(["import", "--library", lib] + folders, after: delay) { kills += 1 }
            let again = try Camlib.run(["import", "--library", lib] + folders)
            #expect(again.status == 0, "killed after \(delay) s: \(again.stderr)")
            let verified = try Camlib.run(["verify", "--library", lib])
            #expect(verified.status == 0, "killed after \(delay) s: \(verified.stdout)")
            let originals = FileManager.default.enumerator(atPath: lib + "/originals")?.compactMap { $0 as? String } ?? []
            let twice = originals.filter { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent.hasSuffix("-2") }
            #expect(twice.isEmpty, "killed after \(delay) s: \(twice)")
        }
        #expect(kills > 0, "every import finished before it could be killed")
    }

    /// `camlib edit` decodes in a child of its own: when the child crashes (sent
    /// SIGSEGV here, as a decoder's fault would), the command ends with an error naming
    /// the asset and the cause, and the library is as it was.
    @Test func anEditWhoseDecoderCrashesEndsWithAnErrorNamingTheAsset() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("apple-live-photo/IMG_4394.HEIC"), Media.path("apple-live-photo/IMG_4394.mov")]).status == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Camlib.path)
        p.arguments = ["edit", "--library", lib, "1", "--filter", "comic"]
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // The child: the process whose parent is the command.
        var child: Int32?
        for _ in 0..<400 where child == nil {
            usleep(25_000)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 2, Int32(fields[1]) == p.processIdentifier { child = pid }
            }
        }
        let pid = try #require(child, "the edit ran in no child")
        usleep(300_000)
        kill(pid, SIGSEGV)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 1, "\(said)")
        #expect(said.contains("camlib: asset 1: a C library") && said.contains("crashed"), "\(said)")
        let verified = try Camlib.run(["repair", "--library", lib])
        #expect(verified.status == 0)
        #expect(try Camlib.run(["verify", "--library", lib]).status == 0)
        let shown = try Camlib.run(["show", "--library", lib, "1", "--json"])
        #expect(!shown.stdout.contains("org.camlib.filters"), "no edit was recorded")
    }
}
