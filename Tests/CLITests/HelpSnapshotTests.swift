import Foundation
import Testing
import TestSupport

/// Every command's whole `--help`, against the text kept in `HelpSnapshots/`: help is
/// part of the interface, and a change to it is seen in review. After a deliberate
/// change, `CAMLIB_RECORD_HELP=1 swift test --filter HelpSnapshotTests` writes the
/// snapshots again (and this test then fails once, to say so).
struct HelpSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("HelpSnapshots")

    /// Every command a user can see, as the words after `camlib`, from ArgumentParser's
    /// own description of the tool.
    static func commands() throws -> [[String]] {
        let dump = try Camlib.run(["--experimental-dump-help"])
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var out: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            guard command["shouldDisplay"] as? Bool ?? true else { return }
            if path.last != "help" { out.append(path) }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(tool["command"] as? [String: Any]), [])
        return out
    }

    @Test func everyCommandsHelpIsAsRecorded() throws {
        let record = ProcessInfo.processInfo.environment["CAMLIB_RECORD_HELP"] == "1"
        let commands = try Self.commands()
        #expect(commands.count > 25, "\(commands)")
        var names: Set<String> = []
        for path in commands {
            let name = (["camlib"] + path).joined(separator: "-") + ".txt"
            names.insert(name)
            let help = try Camlib.run(path + ["--help"])
            #expect(help.status == 0, "\(path): \(help.stderr)")
            let file = Self.folder.appendingPathComponent(name)
            if record {
                try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
                try help.stdout.write(to: file, atomically: true, encoding: .utf8)
                continue
            }
            let kept = try? String(contentsOf: file, encoding: .utf8)
            #expect(kept == help.stdout, "camlib \(path.joined(separator: " ")) --help differs from HelpSnapshots/\(name) (after a deliberate change: CAMLIB_RECORD_HELP=1)")
        }
        // No snapshot of a command that is gone.
        let kept = Set((try? FileManager.default.contentsOfDirectory(atPath: Self.folder.path)) ?? [])
        #expect(kept == names, "snapshots without a command: \(kept.subtracting(names)); commands without one: \(names.subtracting(kept))")
        #expect(!record, "help snapshots written to \(Self.folder.path); run again without CAMLIB_RECORD_HELP")
    }
}
