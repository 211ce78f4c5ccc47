import Foundation
import Codecs
import Containers
import Glibc
import Imaging
import Testing
import TestSupport

@testable import Library

/// Import reads each file from where the user keeps it once: the kernel's own count of
/// opens (inotify's IN_OPEN, which sees every process and every library, FFmpeg's and
/// libheif's included) of each source file during an import.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct ImportReadsOnceTests {
    /// Opens of each of `paths` while `body` runs.
    static func opens(of paths: [String], during body: () throws -> Void) throws -> [String: Int] {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(fd >= 0)
        defer { close(fd) }
        var watched: [Int32: String] = [:]
        for path in paths {
            let wd = inotify_add_watch(fd, path, UInt32(IN_OPEN))
            try #require(wd >= 0, "\(path): \(String(cString: strerror(errno)))")
            watched[wd] = path
        }
        try body()
        var counts = Dictionary(uniqueKeysWithValues: paths.map { ($0, 0) })
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var at = 0
            while at + MemoryLayout<inotify_event>.size <= n {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: inotify_event.self) }
                if event.mask & UInt32(IN_OPEN) != 0, let path = watched[event.wd] { counts[path, default: 0] += 1 }
                at += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        return counts
    }

    @Test func eachFileIsOpenedOnce() throws {
        let scratch = try ScratchDirectory()
        let folder = try scratch.subdirectory("card")
        let names = [
            "apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov", "apple-misc/IMG_4120.JPG", "android-depth-motion/motion_photo.jpeg",
            "apple-misc/quicktime-hvc1.mov",
        ]
        var paths: [String] = []
        for name in names {
            let path = folder.appendingPathComponent(URL(fileURLWithPath: name).lastPathComponent).path
            try FileManager.default.copyItem(atPath: Media.path(name), toPath: path)
            paths.append(path)
        }
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        var report: ImportReport?
        let counts = try Self.opens(of: paths) { report = try Importer(library: library).run(paths: [folder.path]) }
        #expect(report?.errors.isEmpty == true && report?.imported == names.count, "\(String(describing: report))")
        for path in paths { #expect(counts[path] == 1, "\(URL(fileURLWithPath: path).lastPathComponent) opened \(counts[path] ?? 0) times") }

        // Again: every file known, each still opened once (to hash it).
        let again = try Self.opens(of: paths) { report = try Importer(library: library).run(paths: [folder.path]) }
        #expect(report?.duplicates == names.count)
        for path in paths { #expect(again[path] == 1, "again: \(URL(fileURLWithPath: path).lastPathComponent) opened \(again[path] ?? 0) times") }
    }
}

/// Thumbnails from what a file carries.
struct EmbeddedThumbnailTests {
    @Test func aJPEGsMPFPreviewIsItsThumbnail() throws {
        let scratch = try ScratchDirectory()
        // A red photo without an Exif thumbnail, carrying a blue 640x480 MPF preview: the
        // thumbnail is blue when it comes from the preview, red when the photo is decoded.
        var red = PixelBuffer<UInt8>(width: 1600, height: 1200, channels: 3)
        var blue = PixelBuffer<UInt8>(width: 640, height: 480, channels: 3)
        for i in 0..<(red.width * red.height) { red.components[i * 3] = 220 }
        for i in 0..<(blue.width * blue.height) { blue.components[i * 3 + 2] = 220 }
        let photo = try MPFIndex.appending(try JPEGCodec.encode(blue, quality: 90), attribute: 0x010001, to: try JPEGCodec.encode(red, quality: 90))
        let path = scratch.file("preview.jpg")
        try Data(photo).write(to: URL(fileURLWithPath: path))
        let outcome = MediaAnalyzer.analyze(path: path, stagingDirectory: try scratch.subdirectory("tmp"))
        defer { outcome.discardStagedFiles() }
        guard case .analyzed(let a) = outcome else {
            Issue.record("not analyzed: \(outcome)")
            return
        }
        let thumbnail = try #require(a.thumbnail)
        #expect(thumbnail.source == "embedded" && thumbnail.width == 320 && thumbnail.height == 240, "\(thumbnail)")
        let pixels = try JPEGCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: thumbnail.temporaryPath)))).pixels
        let middle = (pixels.height / 2 * pixels.width + pixels.width / 2) * 3
        #expect(pixels.components[middle + 2] > 180 && pixels.components[middle] < 60, "\(pixels.components[middle..<(middle + 3)])")
    }
}
