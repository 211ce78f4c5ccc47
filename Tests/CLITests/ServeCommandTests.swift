import Foundation
import Testing
import TestSupport

/// `camlib serve` as a process: it prints its URL, answers, and stops cleanly on SIGTERM;
/// a port in use is said so. (The page itself: Tests/Browser; the API: GalleryTests.)
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct ServeCommandTests {
    /// A running `camlib serve` on a free loopback port.
    final class Server: @unchecked Sendable {
        // Set once in init; the process is only signalled and waited for afterwards.
        let process = Process()
        let output = Pipe()
        let url: String

        init(library: String) throws {
            process.executableURL = URL(fileURLWithPath: Camlib.path)
            process.arguments = ["serve", "--library", library, "--port", "0"]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line = ""
            let handle = output.fileHandleForReading
            while !line.hasSuffix("\n"), let byte = try handle.read(upToCount: 1), !byte.isEmpty {
                line += String(decoding: byte, as: UTF8.self)
            }
            guard line.hasPrefix("camlib serve: http://127.0.0.1:") else {
                process.terminate()
                throw ServeFailed(output: line)
            }
            url = String(line.dropFirst("camlib serve: ".count).dropLast())
        }

        var port: String { String(url.split(separator: ":").last!.prefix { $0.isNumber }) }
    }

    struct ServeFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "camlib serve did not print its URL: \(output)" }
    }

    @Test func servesUntilSIGTERMThenExitsCleanly() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", library, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let server = try Server(library: library)
        // An HTTP client beside camlib's own code: Python's.
        let get = try run("python3", ["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())", server.url + "api/assets"])
        let assets = (try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: Any])?["assets"] as? [[String: Any]]
        #expect(assets?.count == 1)
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
    }

    @Test func aPortInUseIsSaidSo() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", library, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let server = try Server(library: library)
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
        }
        let second = try Camlib.run(["serve", "--library", library, "--port", server.port])
        #expect(second.status == 1)
        #expect(second.stderr.contains("port \(server.port) on 127.0.0.1 is in use"), "\(second.stderr)")
    }
}
