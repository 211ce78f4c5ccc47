import Foundation
import Testing
import TestSupport

/// A path that cannot be used is said in words, with the path and the cause: never
/// Foundation's `Error Domain=NSCocoaErrorDomain Code=516 …` dump.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct FileErrorMessageTests {
    @Test func pathsThatCannotBeUsedAreSaidInWords() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let imported = try Camlib.run(["import", Media.path("apple-misc/iphone_7.heic"), "--library", lib])
        #expect(imported.status == 0, "\(imported.stderr)")
        let file = scratch.file("a-file")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [(arguments: [String], says: String)] = [
            (["capture", "--library", file, "--count", "1"], "\(file): a file is there; a library needs a folder"),
            (["import", Media.path("apple-misc/iphone_7.heic"), "--library", file + "/lib"], "\(file)/lib: a part of the path is a file, not a folder"),
            (["export", "1", "--to", file, "--library", lib], "\(file): a file is there; --to needs a folder"),
            (["aux", "extract", "1", "--out", file, "--library", lib], "\(file): a file is there; --out needs a folder"),
            (["aux", "extract", "1", "--out", file + "/sub", "--library", lib], "\(file)/sub: a part of the path is a file, not a folder"),
            (["aux", "attach", "1", "--type", "depth", "--from", scratch.file("missing.png"), "--library", lib], "\(scratch.file("missing.png")): no such file or folder"),
        ]
        for (arguments, says) in cases {
            let r = try Camlib.run(arguments)
            #expect(r.status != 0, "\(arguments)")
            #expect(r.stderr.contains(says), "\(arguments): \(r.stderr)")
            #expect(!r.stderr.contains("Error Domain") && !r.stderr.contains("NSCocoaErrorDomain"), "\(arguments): \(r.stderr)")
        }
    }
}
