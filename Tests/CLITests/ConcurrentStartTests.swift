import Foundation
import Testing
import TestSupport

/// Commands started together on a library that does not exist yet: one creates and
/// migrates the catalog, the others wait for it and go on.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct ConcurrentStartTests {
    @Test func tenImportsStartedAtOnceOnANewLibraryAllSucceed() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("lib")
        let files = ["orientation/Landscape_1.jpg", "orientation/Landscape_2.jpg", "orientation/Landscape_3.jpg", "orientation/Landscape_4.jpg",
                     "orientation/Landscape_5.jpg", "orientation/Landscape_6.jpg", "orientation/Landscape_7.jpg", "orientation/Landscape_8.jpg",
                     "orientation/Landscape_0.jpg", "orientation/kimono.avif"]
        var processes: [(Process, Pipe)] = []
        for file in files {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Camlib.path)
            process.arguments = ["import", "--library", library, Media.path(file)]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            processes.append((process, errors))
        }
        for (process, _) in processes { try process.run() }
        for (process, errors) in processes {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(said)")
        }
        let query = try Camlib.run(["query", "--library", library, "--json"])
        #expect(query.status == 0)
        let assets = try JSONSerialization.jsonObject(with: Data(query.stdout.utf8)) as? [[String: Any]]
        #expect(assets?.count == files.count)
    }
}
