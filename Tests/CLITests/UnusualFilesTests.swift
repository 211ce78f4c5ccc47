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

    @Test func aNameThatIsNotUTF8IsSaidToBeSo() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.file("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // "café.jpg" in Latin-1: the é is the single byte 0xE9.
        let name = Array(folder.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0]
        let fd = name.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        #expect(fd >= 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/Landscape_1.jpg"))))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let result = try Self.run(["import", "--library", scratch.file("lib"), folder])
        #expect(result.stderr.contains("is not valid UTF-8") && !result.stderr.contains("No such file"), "\(result.stderr)")
    }
}
