import Foundation
import Testing
import TestSupport

/// What users hit in passing: a folder that cannot be read, a mistyped path, a file name
/// made to play tricks on a terminal.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct SmallThingsTests {
    @Test func aFolderThatCannotBeReadIsAnErrorNamingItAndTheRestIsImported() throws {
        let scratch = try ScratchDirectory()
        let input = try scratch.subdirectory("in")
        let locked = try scratch.subdirectory("in/locked")
        try FileManager.default.copyItem(atPath: Media.path("orientation/Landscape_1.jpg"), toPath: input.appendingPathComponent("a.jpg").path)
        try FileManager.default.copyItem(atPath: Media.path("orientation/Landscape_2.jpg"), toPath: locked.appendingPathComponent("b.jpg").path)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: scratch.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let arguments = ["import", "--library", scratch.file("lib"), input.path]
        // Root reads any folder: the import then runs as nobody, without capabilities.
        let result =
            getuid() == 0
            ? try run("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", Camlib.path] + arguments)
            : try Camlib.run(arguments)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("\(locked.path): cannot read the folder: Permission denied"), "\(result.stderr)")
        #expect(result.stdout.contains("1 new asset"), "\(result.stdout)")
    }

    @Test func aMistypedPathDoesNotLeaveAnEmptyLibrary() throws {
        let scratch = try ScratchDirectory()
        let result = try Camlib.run(["import", "--library", scratch.file("libary"), scratch.file("Photoss")])
        #expect(result.status == 1 && result.stderr.contains("no such file or folder") && result.stderr.contains("no library was made"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("libary")))
    }

    @Test func fileNamesCannotPlayTricksOnTheTerminal() throws {
        let scratch = try ScratchDirectory()
        let name = "evil\u{1B}[31mred\nline\u{9B}2J.jpg"
        let input = try scratch.subdirectory("in")
        try FileManager.default.copyItem(atPath: Media.path("orientation/Landscape_1.jpg"), toPath: input.appendingPathComponent(name).path)
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, input.path]).status == 0)
        let table = try Camlib.run(["query", "--library", lib])
        #expect(table.stdout.contains("evil\\e[31mred\\nline\\u{9B}2J.jpg"), "\(table.stdout)")
        #expect(table.stdout.split(separator: "\n").count == 3, "a header, one row, the count")
        let shown = try Camlib.run(["show", "--library", lib, "1"])
        for output in [table.stdout, shown.stdout] {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" })
        }
        // Data formats keep the name as it is, in their own escaping.
        let json = try Camlib.run(["query", "--library", lib, "--json"])
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let resources = try #require(assets.first?["resources"] as? [[String: Any]])
        #expect(resources.first?["originalName"] as? String == name)
    }
}
