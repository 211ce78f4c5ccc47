import Foundation
import Testing
import TestSupport

/// What is not a regular file is refused before it is read, and names camlib cannot
/// open are said to be so.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct UnusualFilesTests {
    /// camlib under a ten-second limit: a command that blocks fails the test, not the run.
    static func run(_ arguments: [String]) throws -> ProcessResult {
        try TestSupport.run("/usr/bin/timeout", ["-s", "KILL", "10", Camlib.path] + arguments)
    }

    @Test func aFIFOOrADeviceIsRefusedNotRead() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", library, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (file, kind) in [(fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device")] {
            for command in [["show", file], ["aux", "list", file], ["aux", "extract", file, "--out", scratch.file("x")],
                            ["aux", "attach", "1", "--type", "depth", "--from", file]] {
                let result = try Self.run(command + ["--library", library])
                #expect(!result.signaled, "\(command) blocked")
                #expect(result.status == 1 && result.stderr.contains("\(file) is \(kind), not a file"), "\(command): \(result.stderr)")
            }
        }
        let empty = try Self.run(["show", "", "--library", library])
        #expect(empty.status == 1 && empty.stderr.contains("empty argument"), "\(empty.stderr)")
    }

    /// Copies `source` to a file whose path is given as bytes.
    static func copy(_ source: String, to path: [UInt8]) throws {
        let fd = (path + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        #expect(fd >= 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func makeFolder(_ path: [UInt8]) {
        #expect((path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { mkdir($0.baseAddress!, 0o755) } } == 0)
    }

    /// Names written on Windows or by old cameras (here Latin-1: "é" is the single byte
    /// 0xE9, "ê" 0xEA) are imported and recorded as Windows-1252 reads them; Live Photo
    /// halves and Apple's sidecar with such names still find each other.
    @Test func namesThatAreNotUTF8AreImported() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.file("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cafe = Array(folder.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8)
        try Self.copy(Media.path("orientation/Landscape_1.jpg"), to: cafe)
        // A folder whose own name is not UTF-8, with a Live Photo and Apple's edit sidecar.
        let fete = Array(folder.utf8) + Array("/F".utf8) + [0xEA] + Array("te".utf8)
        Self.makeFolder(fete)
        for ext in ["HEIC", "mov", "AAE"] {
            try Self.copy(Media.path("apple-live-photo/IMG_3582.\(ext)"), to: fete + Array("/IMG_".utf8) + [0xE9] + Array("3582.\(ext)".utf8))
        }
        let library = scratch.file("lib")
        let result = try Camlib.run(["import", "--library", library, folder, "--json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        #expect((report["errors"] as? [Any])?.isEmpty == true, "\(result.stdout)")
        #expect(
            report["imported"] as? Int == 4 && report["livePhotosPaired"] as? Int == 1 && report["attached"] as? Int == 1,
            "\(result.stdout)")
        let catalog = try TestSupport.run(
            "/usr/bin/sqlite3",
            [library + "/catalog.sqlite", "SELECT original_name || '|' || source_dir FROM resource WHERE original_name IS NOT NULL ORDER BY 1"])
        #expect(
            catalog.stdout.split(separator: "\n").map(String.init) == [
                "IMG_é3582.AAE|\(folder)/Fête", "IMG_é3582.HEIC|\(folder)/Fête", "IMG_é3582.mov|\(folder)/Fête", "café.jpg|\(folder)",
            ], "\(catalog.stdout)")
        // The stand-in links are gone; the files they pointed at are not.
        #expect(try FileManager.default.contentsOfDirectory(atPath: library + "/tmp").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2)

        // A name given on the command line as bytes (through a shell, as a person types it).
        let script = #"exec "$0" "$@" "$(printf "$NAME")""#
        let named = ["NAME": folder + "/caf\\351.jpg"]
        let again = try TestSupport.run("/bin/sh", ["-c", script, Camlib.path, "import", "--library", scratch.file("lib2")], environment: named)
        #expect(again.status == 0 && again.stdout.contains("1 new asset"), "\(again.stdout)\(again.stderr)")
        // `show` finds the asset by the file's bytes.
        let shown = try TestSupport.run("/bin/sh", ["-c", script, Camlib.path, "show", "--json", "--library", library], environment: named)
        #expect(shown.status == 0 && shown.stdout.contains("café.jpg"), "\(shown.stdout)\(shown.stderr)")
        // `aux` on a file outside a library says why it cannot read it.
        let loose = try TestSupport.run("/bin/sh", ["-c", script, Camlib.path, "aux", "list", "--library", scratch.file("none")], environment: named)
        #expect(loose.status != 0 && loose.stderr.contains("is not valid UTF-8"), "\(loose.stderr)")

        // Two names in one folder that read alike: the second is an error that shows its bytes.
        let clash = scratch.file("clash")
        try FileManager.default.createDirectory(atPath: clash, withIntermediateDirectories: true)
        let odd = Array(clash.utf8) + [UInt8(ascii: "/"), 0xEA]
        Self.makeFolder(odd)
        try Self.copy(Media.path("orientation/Landscape_2.jpg"), to: odd + Array("/café.jpg".utf8))
        try Self.copy(Media.path("orientation/Landscape_3.jpg"), to: odd + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let clashed = try Camlib.run(["import", "--library", library, clash])
        #expect(clashed.stdout.contains("1 new asset"), "\(clashed.stdout)")
        #expect(clashed.stderr.contains("\(clash)/ê/café.jpg: its name (caf\\xE9.jpg as bytes)"), "\(clashed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library + "/tmp").isEmpty)
    }
}
