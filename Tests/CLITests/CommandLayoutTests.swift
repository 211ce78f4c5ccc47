import Foundation
import Testing
import TestSupport

/// The command-line tool's shape, as a newcomer should find it: one command per file,
/// named after it, and one `--json` (the shared `JSONOutput`/`OutputFormat` groups)
/// worded the same in every command.
struct CommandLayoutTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/camlib")

    @Test func everyCommandHasAFileOfItsOwnNamedAfterIt() throws {
        let declaration = try Regex(#"(?m)^(?:struct|final class|class|enum) (\w+)[^{\n]*\{"#)
        var commands: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(name), encoding: .utf8)
            let types = text.matches(of: declaration).map { String(text[$0.output[1].range!]) }
            let isCommand = text.contains(": ParsableCommand") || text.contains(": AsyncParsableCommand")
            guard isCommand else { continue }
            commands += types
            #expect(types.count == 1, "\(name) declares \(types); a command file holds its command only")
            #expect(types.first.map { "\($0).swift" } == name, "\(name) holds \(types)")
        }
        #expect(commands.count > 25, "\(commands)")
    }

    @Test func everyJSONFlagIsTheSharedOne() throws {
        let dump = try Camlib.run(["--experimental-dump-help"])
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var withJSON: [String] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                guard names.contains("json") else { continue }
                withJSON.append(path.joined(separator: " "))
                let help = argument["abstract"] as? String ?? ""
                #expect(help.hasPrefix("Print JSON on stdout instead of "), "camlib \(path.joined(separator: " ")) --json: \(help)")
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(tool["command"] as? [String: Any]), [])
        #expect(withJSON.count >= 24, "\(withJSON)")
    }
}
