import Foundation
import GRDB
import Testing
import TestSupport

/// What the documentation promises, kept true: every option a command's help names is
/// in the guide or the reference, every column of the catalog's tables and public views
/// is in the catalog reference, the performance page shows what the benchmarks' result
/// files say, and no link leads nowhere or out of the repository.
struct DocumentationTests {
    static let root = Media.packageRoot
    static let docs = root.appendingPathComponent("docs")

    static func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The Markdown files of a docs folder.
    static func pages(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: docs.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\(folder)/\($0)" }
    }

    /// Every long option of every command a user can see, from ArgumentParser's own
    /// description of the tool: (command, option).
    static func options() throws -> [(String, String)] {
        let dump = try Camlib.run(["--experimental-dump-help"])
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [(String, String)] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            guard command["shouldDisplay"] as? Bool ?? true else { return }
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    found.append((path.joined(separator: " "), "--" + (name["name"] as? String ?? "")))
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(tool["command"] as? [String: Any]), ["camlib"])
        return found
    }

    @Test func everyOptionIsInTheGuideOrTheReference() throws {
        let text = try (Self.pages(in: "guide") + Self.pages(in: "reference")).map(Self.read).joined(separator: "\n")
        let options = try Self.options()
        #expect(options.count > 100, "\(options.count) options found")
        for (command, option) in options {
            let mentioned = text.range(of: NSRegularExpression.escapedPattern(for: option) + "(?![a-z0-9-])", options: .regularExpression) != nil
            #expect(mentioned, "`\(command) \(option)` is in its help but in neither docs/guide nor docs/reference")
        }
    }

    @Test func theCommandReferenceNamesOnlyOptionsTheCommandsHave() throws {
        var byCommand: [String: Set<String>] = [:]
        for (command, option) in try Self.options() { byCommand[command, default: []].insert(option) }
        let reference = try Self.read("docs/reference/commands.md")
        let option = try NSRegularExpression(pattern: "`(-{1,2}[a-z][a-z0-9-]*)")
        for section in reference.components(separatedBy: "\n## ").dropFirst() {
            let heading = String(section.prefix { $0 != "\n" })
            let commands = heading.split(separator: ",").map { "camlib " + $0.trimmingCharacters(in: .whitespaces) }
            // A group (`album`) stands for its subcommands.
            let known = byCommand.filter { entry in commands.contains { entry.key == $0 || entry.key.hasPrefix($0 + " ") } }
                .values.reduce(into: Set<String>()) { $0.formUnion($1) }
            #expect(commands.allSatisfy { byCommand[$0] != nil }, "docs/reference/commands.md: no command \(heading)")
            for line in section.components(separatedBy: "\n") where line.hasPrefix("|") {
                for match in option.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let name = String(line[Range(match.range(at: 1), in: line)!])
                    guard name.hasPrefix("--") else { continue }
                    #expect(known.contains(name), "docs/reference/commands.md names \(name) under \(heading), which has no such option")
                }
            }
        }
    }

    /// The part of the catalog reference that documents `name`: the section whose
    /// heading names it, else the section with a table row that names it first.
    static func documentation(of name: String, in reference: String) -> String? {
        let sections = reference.components(separatedBy: "\n## ").flatMap { part -> [String] in
            let subsections = part.components(separatedBy: "\n### ")
            return subsections.count > 1 ? Array(subsections.dropFirst()) + [part] : [part]
        }
        for section in sections {
            let heading = section.prefix { $0 != "\n" }
            if heading.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(name) { return section }
        }
        return sections.first { $0.range(of: "\n\\| [^|\n]*`\(name)`[^|\n]*\\|", options: .regularExpression) != nil }
    }

    @Test func everyCatalogColumnIsInTheReference() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        // A catalog made by camlib itself, every migration applied.
        #expect(try Camlib.run(["import", "--library", library, Media.packageRoot.appendingPathComponent("docs/filters.jpg").path]).status == 0)
        let reference = try Self.read("docs/reference/catalog.md")
        let db = try DatabaseQueue(path: library + "/catalog.sqlite")
        let objects = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
                .map { ($0["name"] as String, $0["type"] as String) }
        }
        // SQLite's and GRDB's own, and the full-text index's shadow tables.
        let ownedBySQLite = objects.filter { $0.0.hasPrefix("sqlite_") || $0.0 == "grdb_migrations" || $0.0.hasPrefix("asset_summary_names_") }
        let documented = objects.filter { object in !ownedBySQLite.contains { $0.0 == object.0 } }
        #expect(documented.count > 30, "\(documented.map(\.0))")
        for (name, type) in documented {
            guard let section = Self.documentation(of: name, in: reference) else {
                Issue.record("the \(type) \(name) is not in docs/reference/catalog.md")
                continue
            }
            let columns = try db.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name]) }
            for column in columns where !section.contains("`\(column)`") {
                Issue.record("the column \(name).\(column) is not in docs/reference/catalog.md")
            }
        }
    }

    @Test func thePerformancePageShowsTheBenchmarksResults() throws {
        let check = try run("/usr/bin/python3", [Self.root.appendingPathComponent("bench/report.py").path, "--check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func theReadmeIsShortAndForUsers() throws {
        let readme = try Self.read("README.md")
        let lines = readme.components(separatedBy: "\n").count
        #expect(lines <= 250, "README.md has \(lines) lines")
        // The two commands, the second exactly what CI runs.
        #expect(readme.contains("./setup.sh && swift run camlib capture --live --depth"))
        let ci = try Self.read(".ci/run")
        let testCommand = "./setup.sh && swift test && Tests/Browser/run"
        #expect(readme.contains(testCommand) && ci.contains("\n" + testCommand + "\n"))
    }

    @Test func noPageTalksOfIssuesOrLinksOutOfTheRepository() throws {
        let files = try ["README.md", "CHANGELOG.md"] + Self.pages(in: "guide") + Self.pages(in: "reference")
            + ["docs/architecture.md", "docs/performance.md", "docs/contributing.md"]
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for file in files {
            let text = try Self.read(file)
            #expect(text.range(of: #"[Ii]ssues? \d+"#, options: .regularExpression) == nil, "\(file) speaks of issues by number")
            let folder = Self.root.appendingPathComponent(file).deletingLastPathComponent()
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("#") { continue }
                let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                let resolved = folder.appendingPathComponent(path).standardizedFileURL.path
                #expect(resolved.hasPrefix(Self.root.standardizedFileURL.path + "/"), "\(file) links out of the repository: \(target)")
                #expect(FileManager.default.fileExists(atPath: resolved), "\(file) links to \(target), which does not exist")
            }
        }
    }
}
