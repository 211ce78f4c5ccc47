import Foundation
import Testing
import TestSupport

/// Every command of the guide (`docs/guide/*.md`), run as a reader would paste it, and
/// what the page shows beneath it checked against what it prints, so the guide cannot
/// drift from camlib.
///
/// A page's `console` blocks run in order in a scratch home of their own: an empty
/// default library, and the corpus's folders in `~/Pictures` as the guide describes
/// them. A line `$ COMMAND` is run by `sh`; the lines after it, up to the next command,
/// are what it prints (stdout and stderr together). Each shown line must come out, in
/// order, with numbers and hashes free to differ (times, sizes, dates); `…` stands for
/// lines left out. `# exit N` at the end of a command says the status it ends with;
/// otherwise it must succeed. `camlib serve` in the foreground runs for five seconds.
/// Pages run one after another: nine imports and captures at once would starve the
/// tests that time a camera's frames. A page that uses `$CATALOG`, the URL of the
/// reader's PostgreSQL database, gets a new database on the tests' own server.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage), .serialized)
struct GuideTests {
    static let folder = Media.packageRoot.appendingPathComponent("docs/guide")

    static var pages: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
    }

    struct Step {
        var command: String
        var shown: [String]
        var status: Int32
    }

    static func steps(of text: String) -> [Step] {
        var steps: [Step] = []
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```console") {
                inBlock = true
            } else if inBlock, line.hasPrefix("```") {
                inBlock = false
            } else if inBlock, line.hasPrefix("$ ") {
                var command = String(line.dropFirst(2))
                var status: Int32 = 0
                if let marker = command.range(of: #"\s+# exit (\d+)$"#, options: .regularExpression) {
                    status = Int32(command[marker].split(separator: " ").last!)!
                    command = String(command[..<marker.lowerBound])
                }
                steps.append(Step(command: command, shown: [], status: status))
            } else if inBlock, !steps.isEmpty {
                steps[steps.count - 1].shown.append(line)
            }
        }
        return steps
    }

    /// A line as compared: the home folder as `~`, hashes and numbers as placeholders,
    /// runs of spaces as one (a table's columns widen with its numbers).
    static func normalized(_ line: String, home: String) -> String {
        line.replacingOccurrences(of: home, with: "~")
            .replacingOccurrences(of: #"[0-9a-f]{16,}"#, with: "H", options: .regularExpression)
            // A number, whole or not: a time of 0 is printed as 0, another as 0.001.
            .replacingOccurrences(of: #"[0-9]+(\.[0-9]+)?"#, with: "N", options: .regularExpression)
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
    }

    @Test func everyPageHasCommands() {
        #expect(Self.pages.count >= 8, "\(Self.pages)")
        for page in Self.pages {
            let text = (try? String(contentsOf: Self.folder.appendingPathComponent(page), encoding: .utf8)) ?? ""
            #expect(!Self.steps(of: text).isEmpty, "\(page) shows no command")
        }
    }

    @Test(arguments: pages) func pageRunsAsWritten(_ page: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(page), encoding: .utf8)
        let scratch = try ScratchDirectory()
        let home = scratch.url.resolvingSymlinksInPath().path
        let pictures = home + "/Pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        for (name, folder) in [("iPhone", "apple-live-photo"), ("Portraits", "apple-portrait-heic"), ("Android", "android-depth-motion"), ("More", "apple-misc")] {
            try FileManager.default.createSymbolicLink(atPath: pictures + "/" + name, withDestinationPath: Media.path(folder))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["CAMLIB_LIBRARY"] = nil
        environment["XDG_DATA_HOME"] = nil
        environment["HOME"] = home
        environment["PATH"] = URL(fileURLWithPath: Camlib.path).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        if text.contains("$CATALOG") {
            let server = try PostgresServer.shared()
            environment["CATALOG"] = server.url(database: try server.createDatabase("guide"))
        }

        for step in Self.steps(of: text) {
            let serving = step.command.hasPrefix("camlib serve") && !step.command.contains(" & ")
            let line = (serving ? "timeout -s INT 5 " : "timeout -s KILL 600 ") + step.command + " 2>&1"
            let process = Process()
            // As a person's shell runs it: with no signal blocked. (The test runner blocks
            // SIGTERM, and a process inherits the mask; `timeout` would never hear the
            // `kill` a page sends it.)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv('/bin/sh', ['sh', '-c', sys.argv[1]])",
                line,
            ]
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: home)
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let output = String(decoding: data, as: UTF8.self)
            // `timeout` answers 124 when it had to stop the server, which then exited cleanly.
            let expected: Int32 = serving ? 124 : step.status
            #expect(process.terminationStatus == expected, "\(page): `\(step.command)` exited \(process.terminationStatus), not \(expected):\n\(output)")

            let printed = output.components(separatedBy: "\n").map { Self.normalized($0, home: home) }
            var at = 0
            for shown in step.shown where !shown.trimmingCharacters(in: .whitespaces).isEmpty && !shown.contains("…") {
                let wanted = Self.normalized(shown.replacingOccurrences(of: "~", with: home), home: home)
                guard let found = printed[at...].firstIndex(of: wanted) else {
                    Issue.record("\(page): `\(step.command)` did not print, in order:\n\(shown)\nIt printed:\n\(output)")
                    break
                }
                at = found + 1
            }
        }
    }
}
