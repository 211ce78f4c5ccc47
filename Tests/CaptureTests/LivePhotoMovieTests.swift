import Codecs
import Containers
import Foundation
import Imaging
import Testing
import TestSupport

/// A Live Photo movie as camlib writes it, read back by exiftool and ffprobe.
struct LivePhotoMovieTests {
    @Test func theStillImageTimeTrackIsReadByExiftoolAndFFprobe() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("live.mov")
        var settings = MovieWriter.Settings(codec: .h264, width: 64, height: 48)
        settings.quickTimeKeys = [("com.apple.quicktime.content.identifier", "6F1C1F0B-0D22-4E59-9A53-3C8A6A0C1E11")]
        let writer = try MovieWriter(path: path, settings: settings)
        for n in 0..<90 {
            try writer.append(PixelBuffer(width: 64, height: 48, channels: 3, components: [UInt8](repeating: UInt8(n), count: 64 * 48 * 3)), pts: Int64(n * 20))
        }
        try writer.finish()
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let live = try LivePhotoMovie.addingStillImageTime(1.5, to: original)
        try Data(live).write(to: URL(fileURLWithPath: path))

        let tracks = try MovieTracks(file: live)
        #expect(tracks.tracks.map(\.handler) == ["vide", "meta"])
        let exif = try run("exiftool", ["-ee", "-j", "-G1", "-StillImageTime", "-ContentIdentifier", "-MediaGroupUUID", path])
        #expect(exif.stdout.contains("StillImageTime") && exif.stdout.contains("6F1C1F0B-0D22-4E59-9A53-3C8A6A0C1E11"), "\(exif.stdout)")
        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_tag_string", "-of", "csv=p=0", path])
        #expect(probe.stdout.contains("data,mebx"), "\(probe.stdout)")
        // The video still decodes whole.
        let reader = try MovieFrameReader(path: path)
        var frames = 0
        while try reader.next() != nil { frames += 1 }
        #expect(frames == 90)
    }

    @Test func anAppleMakerNoteReadsBack() throws {
        let note = AppleMakerNote.bytes(contentIdentifier: "6F1C1F0B-0D22-4E59-9A53-3C8A6A0C1E11")
        let parsed = try AppleMakerNote(bytes: note)
        #expect(parsed.contentIdentifier == "6F1C1F0B-0D22-4E59-9A53-3C8A6A0C1E11")
        #expect(parsed.version == 14)
    }
}
