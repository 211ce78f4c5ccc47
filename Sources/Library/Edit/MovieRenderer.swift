import Codecs
import Containers
import Filters
import Foundation

/// Renders a filter recipe over every frame of a Live Photo's movie: same frame count,
/// timing, size and orientation; the audio track, Apple's timed metadata tracks
/// (still-image-time) and the QuickTime keys (content identifier) keep their bytes.
enum MovieRenderer {
    /// `options`: the codec (the source's own by default) and encoder settings.
    /// `bitRateCap`: the video's bit rate at most this many times the original's (an edit
    /// must not make the movie heavier than it was: 1); nil for no cap.
    static func render(
        path: String, recipe: FilterRecipe, scratch: URL, options: VideoRenderer.Options = VideoRenderer.Options(),
        bitRateCap: Double? = 1, identifier: (old: String, new: String)? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws -> [UInt8] {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard let source = try MovieTracks(file: original).tracks.first(where: { $0.handler == "vide" }) else {
            throw MediaAnalyzer.Failure(reason: "the movie has no video track")
        }
        var options = options
        if let bitRateCap, let rate = source.bitRate { options.maximumBitRate = Int(Double(rate) * bitRateCap) }
        let encoded = scratch.appendingPathComponent("\(getpid())-\(UUID().uuidString).part").path
        defer { unlink(encoded) }
        let frames = try VideoRenderer.render(input: path, output: encoded, options: options, progress: progress) {
            recipe.steps.isEmpty ? $0 : recipe.apply(to: $0)
        }
        let rendered = try [UInt8](Data(contentsOf: URL(fileURLWithPath: encoded)))
        guard let video = try MovieTracks(file: rendered).tracks.first(where: { $0.handler == "vide" }) else {
            throw MediaAnalyzer.Failure(reason: "the rendered movie has no video track")
        }
        guard video.samples.count == source.samples.count, frames == source.samples.count else {
            throw MediaAnalyzer.Failure(
                reason: "the movie has \(source.samples.count) video samples but \(frames) frames decoded and \(video.samples.count) were encoded")
        }
        guard video.timescale == source.timescale else {
            throw MediaAnalyzer.Failure(reason: "internal error: the encoded video's timescale \(video.timescale) is not the source's \(source.timescale)")
        }
        // Frame times: the source's presentation times (decode time + composition offset,
        // in presentation order), so every frame shows when it showed before; the last one
        // lasts until the source's end: the latest a sample stops showing.
        var decodeTime: Int64 = 0
        var times: [Int64] = []
        var end: Int64 = 0
        for s in source.samples {
            let shown = decodeTime + Int64(s.compositionOffset)
            times.append(shown)
            end = max(end, shown + Int64(s.duration))
            decodeTime += Int64(s.duration)
        }
        times.sort()
        let durations = times.indices.map { i in UInt32(clamping: (i + 1 < times.count ? times[i + 1] : max(end, times[i] + 1)) - times[i]) }
        let samples = zip(video.samples, durations).map { new, duration in
            MovieRewriter.NewSample(
                data: Array(rendered[new.offset..<(new.offset + new.size)]), duration: duration, isSync: new.isSync,
                compositionOffset: new.compositionOffset)
        }
        // The source's first frame was presented at media time times[0] (its B-frame
        // delay); the new one is presented at its own first composition time.
        let shift = Int64(video.samples.first?.compositionOffset ?? 0) - (times.first ?? 0)
        // The encoder's sample description, with the original's pixel aspect ratio and
        // clean aperture.
        let description = SampleDescription.carrying(["pasp", "clap"], from: source.sampleDescription, into: video.sampleDescription)
        var movie = try MovieRewriter.replacingTrack(
            source.id, in: original, sampleDescription: description, samples: samples, editListShift: shift)
        // A Live Photo render's own content identifier, in the QuickTime keys (moov).
        if let (old, new) = identifier, let moov = ISOBox.sequence(in: movie, from: 0, limit: movie.count).first(where: { $0.type == "moov" }) {
            RenderIdentifier.replace(old, with: new, in: &movie, within: moov.offset..<moov.end)
        }
        return movie
    }
}
