import Capture
import Foundation
import Testing
import TestSupport

/// Where, in a movie of the virtual camera, its lamp lights up (the first frame of each
/// flash, by FFmpeg's decoding) and where its microphone's clicks begin (FFmpeg's AAC
/// decoding), in seconds of the movie.
struct SoundSync {
    var flashes: [Double] = []
    var clicks: [Double] = []
    /// When each frame of the movie is shown.
    var frames: [Double] = []
    var hasSound = false

    init(movie: String, size: FrameSize, in scratch: ScratchDirectory) throws {
        let lamp = SyntheticScene.lamp(in: size)
        let pixels = scratch.file("lamp.gray")
        let video = try run(
            "ffmpeg",
            ["-v", "info", "-y", "-i", movie, "-map", "0:v:0", "-vf", "crop=\(lamp.side):\(lamp.side):\(lamp.x):\(lamp.y),showinfo",
             "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", pixels])
        #expect(video.status == 0, "\(video.stderr.suffix(500))")
        let times = video.stderr.split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("Parsed_showinfo"), let r = line.range(of: "pts_time:") else { return nil }
            return Double(line[r.upperBound...].prefix { !$0.isWhitespace })
        }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pixels)))
        let n = lamp.side * lamp.side
        var wasLit = false
        frames = times
        for (i, t) in times.enumerated() where (i + 1) * n <= bytes.count {
            let lit = bytes[(i * n)..<((i + 1) * n)].reduce(0) { $0 + Int($1) } / n > 150
            if lit && !wasLit { flashes.append(t) }
            wasLit = lit
        }
        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", movie])
        hasSound = probe.stdout.contains("aac")
        guard hasSound else { return }
        let raw = scratch.file("sound.f32")
        let audio = try run("ffmpeg", ["-v", "error", "-y", "-i", movie, "-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", "48000", raw])
        #expect(audio.status == 0, "\(audio.stderr)")
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var i = 0
        while i < samples.count {
            if abs(samples[i]) > 0.3 {
                clicks.append(Double(i) / 48_000)
                i += 4_800
            } else {
                i += 1
            }
        }
    }

    /// Each click lands on the frame that shows its flash: each flash has a click within
    /// one frame at `frameRate`, and so has each click, unless the movie has no frame
    /// while the lamp was lit (a recorder under load drops late frames, as a phone's
    /// does, and may drop all three frames of one flash). At least `pairs` of each.
    func expectInStep(frameRate: Double, pairs: Int = 1, _ context: String) {
        let frame = 1 / frameRate
        let matched = flashes.filter { flash in clicks.contains { abs(flash - $0) < frame } }
        #expect(matched.count == flashes.count && matched.count >= pairs, "\(context): flashes \(flashes), clicks \(clicks)")
        for click in clicks where !flashes.contains(where: { abs($0 - click) < frame }) {
            let shown = frames.filter { $0 > click - frame && $0 < click + SyntheticScene.flashLength }
            #expect(shown.isEmpty, "\(context): a click at \(click) s, and frames at \(shown) s show no flash")
        }
    }
}

/// Sound from the virtual camera's microphone, in step with the picture.
struct CaptureSoundTests {
    @Test func aMovieHasSoundInStepWithItsPicture() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--movie", "--duration", "3", "--size", "640x480", "--fps", "30"])
        #expect(r.status == 0, "\(r.stderr)")
        let movie = try #require(try CaptureCommandTests().assets(lib).first.map { try CaptureCommandTests().original($0) })
        let sync = try SoundSync(movie: movie, size: FrameSize(width: 640, height: 480), in: scratch)
        #expect(sync.hasSound)
        sync.expectInStep(frameRate: 30, pairs: 2, "movie")
    }

    @Test func aLivePhotoHasSoundInStepWithItsPicture() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--live", "--size", "640x480", "--fps", "30", "--quality", "speed"])
        #expect(r.status == 0, "\(r.stderr)")
        let asset = try #require(try CaptureCommandTests().assets(lib).first)
        let resources = try #require(asset["resources"] as? [[String: Any]])
        let movie = try #require(resources.first { $0["role"] as? String == "pairedVideo" }?["path"] as? String)
        let sync = try SoundSync(movie: movie, size: FrameSize(width: 640, height: 480), in: scratch)
        #expect(sync.hasSound)
        sync.expectInStep(frameRate: 30, "Live Photo")
    }

    /// Other cameras hear the system's default input; this machine has none, and says so.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/snd"), "this machine has a sound card"))
    func withoutASoundCardAMovieIsSilentAndSaysSoOnce() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let clip = scratch.file("clip.mov")
        #expect(try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "15", "-c:v", "libx264", "-pix_fmt", "yuv420p", clip]).status == 0)
        let r = try Camlib.run(["capture", "--library", lib, "--device", "file:" + clip, "--movie", "--duration", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let said = r.stderr.components(separatedBy: "recording without sound").count - 1
        #expect(said == 1 && r.stderr.contains("no sound card"), "\(r.stderr)")
        #expect(!r.stderr.contains("ALSA lib"), "\(r.stderr)")
        let movie = try #require(try CaptureCommandTests().assets(lib).first.map { try CaptureCommandTests().original($0) })
        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", movie])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "video", "\(probe.stdout)")
    }

    @Test func noAudioRecordsWithoutSound() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--movie", "--duration", "1", "--size", "640x480", "--no-audio"])
        #expect(r.status == 0, "\(r.stderr)")
        let movie = try #require(try CaptureCommandTests().assets(lib).first.map { try CaptureCommandTests().original($0) })
        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", movie])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "video", "\(probe.stdout)")
    }
}

/// `capture --json` and `revert --json`: what they did, as data.
struct CaptureAndRevertJSONTests {
    @Test func captureJSONDescribesTheNewAssetsAndRevertJSONSaysWhatItDid() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--count", "2", "--interval", "0", "--size", "640x480", "--quality", "speed", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let captured = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let listed = try CaptureCommandTests().assets(lib)
        #expect(captured.count == 2 && captured.map { $0["id"] as? Int } == listed.map { $0["id"] as? Int })
        #expect(captured.allSatisfy { $0["kind"] as? String == "photo" && $0["model"] as? String == "Virtual Camera" })
        let both = try Camlib.run(["capture", "--library", lib, "--json", "--events"])
        #expect(both.status == 64 && both.stderr.contains("choose one of --json and --events"), "\(both.stderr)")

        let id = try #require(captured.first?["id"] as? Int)
        #expect(try Camlib.run(["edit", String(id), "--filter", "mono", "--library", lib]).status == 0)
        for expected in [true, false] {
            let revert = try Camlib.run(["revert", String(id), "--library", lib, "--json"])
            #expect(revert.status == 0, "\(revert.stderr)")
            let said = try #require(try JSONSerialization.jsonObject(with: Data(revert.stdout.utf8)) as? [String: Any])
            #expect(said["asset"] as? Int == id && said["reverted"] as? Bool == expected, "\(revert.stdout)")
            let files = try #require(said["resources"] as? [String])
            #expect(files.contains { $0.contains("/originals/") } && !files.contains { $0.contains("/renders/") }, "\(files)")
        }
    }
}
