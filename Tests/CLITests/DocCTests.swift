import Foundation
import Testing
import TestSupport

/// The DocC catalog of the `CamlibLibrary` product builds, with every symbol link
/// resolved and no warning: what `swift package generate-documentation --target Library`
/// makes for people who use camlib from Swift.
struct DocCTests {
    @Test(.timeLimit(.minutes(30))) func theLibrarysDocumentationBuildsWithoutWarnings() throws {
        let root = Media.packageRoot
        let output = try ScratchDirectory("camlib-docc")
        // A build folder of its own: the one `swift test` runs from is locked while it runs.
        // At the lowest priority: it compiles the library again while tests that time a
        // camera's frames run beside it.
        let result = try run(
            "/usr/bin/nice",
            [
                "-n", "19", "swift",
                "package", "--package-path", root.path, "--scratch-path", root.appendingPathComponent(".build/docc").path,
                "--allow-writing-to-directory", output.path,
                "generate-documentation", "--target", "Library", "--warnings-as-errors", "--output-path", output.file("Library.doccarchive"),
            ])
        #expect(result.status == 0, "\(result.stdout.suffix(4000))\(result.stderr.suffix(4000))")
        let index = output.file("Library.doccarchive/data/documentation/library.json")
        #expect(FileManager.default.fileExists(atPath: index), "no documentation page for the module at \(index)")
    }
}
