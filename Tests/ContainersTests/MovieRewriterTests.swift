import Foundation
import Testing
import TestSupport

@testable import Containers

/// Reading a movie's tracks and writing it again with one track replaced, checked with
/// ffprobe, ffmpeg and exiftool on a real Live Photo movie.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct MovieRewriterTests {
    static let movie = "apple-live-photo/IMG_3582.mov"

    @Test func tracksAndSamplesMatchFFprobe() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(Self.movie))))
        let tracks = try MovieTracks(file: bytes).tracks
        #expect(tracks.map(\.handler) == ["vide", "soun", "meta", "meta", "meta"])
        for (index, track) in tracks.enumerated() {
            let probe = try run("ffprobe", ["-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=size", "-of", "csv=p=0", Media.path(Self.movie)])
            let sizes = probe.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
            // Uncompressed audio is stored one frame per sample; FFmpeg reads it in packets.
            let mine = track.handler == "soun" ? [track.samples.reduce(0) { $0 + $1.size }] : track.samples.map(\.size)
            let theirs = track.handler == "soun" ? [sizes.reduce(0, +)] : sizes
            #expect(mine.count == theirs.count && mine == theirs, "track \(track.id) (\(track.handler)): sizes differ from ffprobe's")
        }
        #expect(tracks[0].samples.count == 55)
        #expect(tracks[0].samples.first?.isSync == true)
    }

    @Test func rewritingAVideoTrackWithItsOwnSamplesKeepsEverything() throws {
        let source = Media.path(Self.movie)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let video = try #require(try MovieTracks(file: bytes).tracks.first { $0.handler == "vide" })
        let samples = video.samples.map {
            MovieRewriter.NewSample(
                data: Array(bytes[$0.offset..<($0.offset + $0.size)]), duration: $0.duration, isSync: $0.isSync,
                compositionOffset: $0.compositionOffset)
        }
        let rewritten = try MovieRewriter.replacingTrack(video.id, in: bytes, sampleDescription: video.sampleDescription, samples: samples)
        let scratch = try ScratchDirectory()
        let output = scratch.file("rewritten.mov")
        try Data(rewritten).write(to: URL(fileURLWithPath: output))
        // Every decoded video frame and every audio packet is the same, with the same times.
        for stream in ["0:v", "0:a"] {
            let args = ["-v", "error", "-i"]
            let codec = stream == "0:a" ? ["-c", "copy"] : ["-fps_mode", "passthrough"]
            let a = try run("ffmpeg", args + [source, "-map", stream] + codec + ["-f", "framemd5", "-"])
            let b = try run("ffmpeg", args + [output, "-map", stream] + codec + ["-f", "framemd5", "-"])
            #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
            #expect(a.stdout == b.stdout, "\(stream) differs")
        }
        // The Live Photo keys and the still-image-time track are still there.
        let tags = ["-s3", "-ee", "-ContentIdentifier", "-StillImageTime"]
        let before = try run("exiftool", tags + [source]), after = try run("exiftool", tags + [output])
        #expect(!before.stdout.isEmpty && before.stdout == after.stdout)
    }
}
