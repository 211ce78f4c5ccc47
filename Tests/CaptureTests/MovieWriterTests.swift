import Codecs
import Foundation
import Imaging
import Testing
import TestSupport

/// MovieWriter's files read back through MovieFrameReader (libavformat), with their
/// orientation, frame times and metadata.
struct MovieWriterTests {
    @Test(arguments: EXIFOrientation.allCases)
    func orientationSurvivesTheDisplayMatrix(_ orientation: EXIFOrientation) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-mw-\(UUID().uuidString).mov").path
        defer { unlink(path) }
        var settings = MovieWriter.Settings(codec: .h264, width: 64, height: 48)
        settings.orientation = orientation
        settings.quickTimeKeys = [("com.apple.quicktime.make", "camlib")]
        settings.creationTime = Date(timeIntervalSince1970: 1_800_000_000)
        let writer = try MovieWriter(path: path, settings: settings)
        for n in 0..<5 {
            let frame = PixelBuffer<UInt8>(width: 64, height: 48, channels: 3, components: [UInt8](repeating: UInt8(n * 40), count: 64 * 48 * 3))
            try writer.append(frame, pts: Int64(n * 20))
        }
        try writer.finish()
        let reader = try MovieFrameReader(path: path)
        #expect(reader.orientation == orientation)
        var times: [Double] = []
        while let f = try reader.next() { times.append(f.seconds) }
        #expect(times.map { ($0 * 30).rounded() } == [0, 1, 2, 3, 4])
        let movie = try MovieFile(path: path)
        #expect(movie.metadata["com.apple.quicktime.make"] == "camlib")
    }
}

/// Sound: AAC beside the picture, each sample where it was given, read back by FFmpeg.
struct MovieWriterAudioTests {
    /// The samples of a movie's first audio track, decoded by the ffmpeg tool (mono float).
    static func decodedAudio(_ path: String) throws -> [Float] {
        let raw = path + ".f32"
        defer { unlink(raw) }
        let r = try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", "48000", raw])
        #expect(r.status == 0, "\(r.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func soundIsAACAndEachClickIsWhereItWasGiven() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-mwa-\(UUID().uuidString).mov").path
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { unlink(path) } }
        var settings = MovieWriter.Settings(codec: .h264, width: 64, height: 48)
        settings.audioSampleRate = 48_000
        let writer = try MovieWriter(path: path, settings: settings)
        for n in 0..<60 {
            try writer.append(PixelBuffer<UInt8>(width: 64, height: 48, channels: 3), pts: Int64(n * 20))
        }
        // Two seconds of a quiet tone, with clicks at 0.5 and 1.25 s, given in uneven chunks.
        var tone = (0..<96_000).map { Float(sin(Double($0) * 2 * .pi * 440 / 48_000) * 0.05) }
        // (A click a codec keeps: 5 ms of 2 kHz, loud, where AAC would drop a hiss.)
        for click in [24_000, 60_000] { for i in 0..<240 { tone[click + i] = Float(sin(Double(i) * 2 * .pi * 2000 / 48_000) * 0.9) } }
        var at = 0
        for size in [700, 1024, 3000, 17, 4096] + [Int](repeating: 5000, count: 20) where at < tone.count {
            let end = min(tone.count, at + size)
            try writer.appendAudio(Array(tone[at..<end]), pts: Int64(at))
            at = end
        }
        try writer.finish()

        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,sample_rate,channels", "-of", "csv=p=0", path])
        #expect(probe.stdout.contains("audio,aac") || probe.stdout.contains("aac,audio"), "\(probe.stdout)")
        let decoded = try Self.decodedAudio(path)
        #expect(abs(decoded.count - 96_000) < 2048, "\(decoded.count) samples")
        // Each click's onset within a millisecond of where it was given.
        for click in [24_000, 60_000] {
            let window = (click - 2400)..<(click + 2400)
            let onset = try #require(window.first { abs(decoded[$0]) > 0.5 })
            #expect(abs(onset - click) < 48, "click at \(click) decoded at \(onset)")
        }
    }
}
