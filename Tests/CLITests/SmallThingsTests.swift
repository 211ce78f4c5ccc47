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
        let name = "evil\u{1B}[31mred\nline\u{9B}2J\u{202E}gpj.jpg"
        let input = try scratch.subdirectory("in")
        try FileManager.default.copyItem(atPath: Media.path("orientation/Landscape_1.jpg"), toPath: input.appendingPathComponent(name).path)
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, input.path]).status == 0)
        let table = try Camlib.run(["query", "--library", lib])
        #expect(table.stdout.contains("evil\\e[31mred\\nline\\u{9B}2J\\u{202E}gpj.jpg"), "\(table.stdout)")
        #expect(table.stdout.split(separator: "\n").count == 3, "a header, one row, the count")
        let shown = try Camlib.run(["show", "--library", lib, "1"])
        for output in [table.stdout, shown.stdout] {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{202E}" })
        }
        // Data formats keep the name as it is, in their own escaping.
        let json = try Camlib.run(["query", "--library", lib, "--json"])
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let resources = try #require(assets.first?["resources"] as? [[String: Any]])
        #expect(resources.first?["originalName"] as? String == name)
    }

    /// An edit on a nearly full disk (a tmpfs of a few MB in a private mount namespace)
    /// says the disk is full, not that the original cannot be read, and leaves the
    /// library sound.
    @Test(.enabled(if: ReadOnlyMount.isPossible || Media.isRequired, "skipped: this account cannot mount (unshare -m)"))
    func anEditOnAFullDiskSaysSoAndLeavesTheLibrarySound() throws {
        let scratch = try ScratchDirectory()
        let mountPoint = try scratch.subdirectory("disk").path
        let script = #"""
            mount -t tmpfs -o size="$2" none "$1" || exit 99
            "$3" import --library "$1/lib" "$4" "$5" > /dev/null || exit 98
            "$3" edit --library "$1/lib" 1 --filter mono 2>&1; echo "edit=$?"
            "$3" verify --library "$1/lib" > /dev/null; echo "verify=$?"
            """#
        var failures: [String] = []
        for size in ["8m", "9m", "10m"] {
            let result = try run(
                "unshare",
                ["-m", "sh", "-c", script, "sh", mountPoint, size, Camlib.path,
                 Media.path("apple-live-photo/IMG_4394.HEIC"), Media.path("apple-live-photo/IMG_4394.mov")])
            #expect(result.stdout.contains("verify=0"), "\(size): \(result.stdout) \(result.stderr)")
            guard !result.stdout.contains("edit=0") else { continue }
            failures.append(result.stdout)
            #expect(result.stdout.contains("No space left on device") && !result.stdout.contains("cannot read"), "\(size): \(result.stdout)")
        }
        #expect(failures.contains { $0.contains("cannot write the new movie: No space left on device") }, "\(failures)")
    }

    /// The library's own folders are not an export's destination; a damaged catalog is
    /// named with what to do; a keyword says it is a keyword.
    @Test func smallMistakesGetClearAnswers() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        for to in [lib + "/originals/out", lib] {
            let export = try Camlib.run(["export", "--library", lib, "1", "--to", to])
            #expect(export.status != 0 && export.stderr.contains("is inside the library"), "\(export.stderr)")
        }
        #expect(try Camlib.run(["verify", "--library", lib]).status == 0)
        let keyword = try Camlib.run(["keyword", "add", "", "1", "--library", lib])
        #expect(keyword.status != 0 && keyword.stderr.contains("cannot be a keyword") && !keyword.stderr.contains("album"), "\(keyword.stderr)")
        // A catalog overwritten with other bytes.
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: lib + "/catalog.sqlite"))
        for file in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: lib + "/catalog.sqlite" + file) }
        let query = try Camlib.run(["query", "--library", lib])
        #expect(query.status != 0 && query.stderr.contains("the catalog \(lib)/catalog.sqlite is damaged"), "\(query.stderr)")
    }
}
