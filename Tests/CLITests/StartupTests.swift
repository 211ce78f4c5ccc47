import Foundation
import Testing
import TestSupport

/// What a camlib process loads. FFmpeg's libraries (and the ~130 they bring) cost ~55 ms
/// of binding before `main`, so commands that only read the catalog must not load them;
/// commands that read movies load them on first use.
@Suite struct StartupTests {
    /// Runs camlib with the dynamic loader reporting, and returns what it says about
    /// each process (camlib and the workers it starts), one report per process.
    func loaderReports(_ arguments: [String], in scratch: ScratchDirectory) throws -> [String] {
        let reports = try scratch.subdirectory("loader-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        environment["LD_DEBUG_OUTPUT"] = reports.appendingPathComponent("process").path
        let result = try Camlib.run(arguments, environment: environment)
        #expect(result.status == 0, "camlib \(arguments.joined(separator: " ")): \(result.stderr.suffix(2000))")
        return try FileManager.default.contentsOfDirectory(at: reports, includingPropertiesForKeys: nil)
            .map { try String(contentsOf: $0, encoding: .utf8) }
    }

    @Test func aQueryLoadsNoFFmpeg() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("library")
        let empty = try scratch.subdirectory("nothing")
        #expect(try Camlib.run(["import", "--library", library, empty.path]).status == 0)
        for arguments in [["--version"], ["query", "--library", library], ["query", "--library", library, "--json"]] {
            let reports = try loaderReports(arguments, in: scratch)
            #expect(reports.count == 1)
            for report in reports {
                #expect(report.contains("libsqlite3"), "the loader's report is read (\(arguments))")
                for name in ["libavformat", "libavcodec", "libavutil", "libswscale"] {
                    #expect(!report.contains(name), "camlib \(arguments.joined(separator: " ")) loaded \(name)")
                }
            }
        }
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage))
    func readingAMovieLoadsFFmpeg() throws {
        let scratch = try ScratchDirectory()
        let movie = Media.path("apple-live-photo/IMG_3582.mov")
        let reports = try loaderReports(["import", "--library", scratch.file("library"), movie], in: scratch)
        #expect(reports.contains { $0.contains("libavformat.so") }, "no process of the import loaded FFmpeg")
    }

    /// Where FFmpeg cannot be loaded (here: its codec library hidden by an empty file in a
    /// private mount namespace), each file that needs it gets an error naming the file and
    /// the cause, the batch goes on, and the catalog still answers. A movie is not
    /// imported; a HEIC is (libheif reads it), and its thumbnail, which takes FFmpeg to
    /// scale, is an error naming its asset (`camlib jobs retry` makes it once FFmpeg loads).
    @Test(
        .enabled(if: Media.shouldRun, Media.skipMessage),
        .enabled(if: ReadOnlyMount.isPossible || Media.isRequired, "skipped: this account cannot make a private mount (unshare -m)"))
    func withoutFFmpegEachFileSaysSoAndTheBatchGoesOn() throws {
        let scratch = try ScratchDirectory()
        let library = scratch.file("library")
        let codec = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libavcodec.so.59").resolvingSymlinksInPath().path
        let files = [Media.path("apple-live-photo/IMG_3582.mov"), Media.path("apple-live-photo/IMG_3582.HEIC")]
        let result = try run(
            "unshare", ["-m", "sh", "-c", "mount --bind /dev/null \"$1\" && shift && exec \"$@\"", "sh", codec, Camlib.path, "import", "--library", library] + files)
        #expect(result.status == 2, "\(result.stderr)")
        let cause = "FFmpeg, which camlib needs for movies and to scale pictures, cannot be loaded: "
        #expect(result.stderr.contains("\(files[0]): \(cause)"), "\(result.stderr)")
        #expect(result.stderr.contains("\(files[1]): imported as asset 1, but its thumbnail cannot be made: \(cause)"), "\(result.stderr)")
        let query = try Camlib.run(["query", "--library", library, "--json"])
        #expect(query.status == 0 && query.stdout.contains("IMG_3582.HEIC") && !query.stdout.contains("IMG_3582.mov"), "\(query.stderr)")
    }
}
