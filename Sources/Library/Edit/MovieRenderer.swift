import Codecs
import Containers
import Filters
import Foundation

/// Renders a filter recipe over every frame of a movie (a Live Photo's, a Motion Photo's,
/// a video): same frame count, timing, size and orientation; the audio track, Apple's
/// timed metadata tracks (still-image-time) and the QuickTime keys keep their bytes.
///
/// Streamed from file to file: frames are decoded, filtered and encoded one at a time into
/// a scratch file, then the new movie is written from the original's and the scratch
/// file's byte ranges (`MovieRewriter.layout`), so a 2 GB movie never sits in memory.
enum MovieRenderer {
    /// `options`: the codec (the source's own by default) and encoder settings.
    /// `bitRateCap`: the video's bit rate at most this many times the original's (an edit
    /// must not make the movie heavier than it was: 1); nil for no cap.
    static func render(
        path: String, recipe: FilterRecipe, scratch: URL, options: VideoRenderer.Options = VideoRenderer.Options(),
        bitRateCap: Double? = 1, identifier: (old: String, new: String)? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws -> AtomicFile.Temporary {
        // The original's boxes are walked once: its moov, and the small boxes before its media.
        let (originalMoov, originalSize, topLevel) = try head(of: path)
        guard let source = try MovieTracks(file: originalMoov, fileSize: originalSize).tracks.first(where: { $0.handler == "vide" }) else {
            throw MediaAnalyzer.Failure(reason: "the movie has no video track")
        }
        var options = options
        if let bitRateCap, let rate = source.bitRate {
            // The encoder's buffer lets it spend a window's worth of bits above the rate
            // (VideoRenderer's half second): over a 3-second Live Photo that made renders
            // 1.04-1.08x their originals. The rate leaves room for it, so rate × length
            // plus the window stays within the original's bits.
            let seconds = Double(source.samples.reduce(0) { $0 + Int($1.duration) }) / Double(max(1, source.timescale))
            let room = seconds > 0 ? seconds / (seconds + VideoRenderer.bitRateWindow) : 1
            options.maximumBitRate = Int(Double(rate) * bitRateCap * room)
        }
        let encoded = scratch.appendingPathComponent(AtomicFile.temporaryName(".part")).path
        defer { unlink(encoded) }
        let frames = try VideoRenderer.render(input: path, output: encoded, options: options, drawing: drawing(recipe), progress: progress)
        let (renderedMoov, renderedSize) = try moov(of: encoded)
        guard let video = try MovieTracks(file: renderedMoov, fileSize: renderedSize).tracks.first(where: { $0.handler == "vide" }) else {
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
            MovieRewriter.SampleLocation(
                offset: new.offset, size: new.size, duration: duration, isSync: new.isSync, compositionOffset: new.compositionOffset)
        }
        // The source's first frame was presented at media time times[0] (its B-frame
        // delay); the new one is presented at its own first composition time.
        let shift = Int64(video.samples.first?.compositionOffset ?? 0) - (times.first ?? 0)
        // The encoder's sample description, with the original's pixel aspect ratio and
        // clean aperture.
        // A recipe that reshapes the frames (a crop) leaves the original's clean aperture
        // behind with its size, and the track's presentation size is the new frames'.
        let reshaped = recipe.changesGeometry
        let description = SampleDescription.carrying(reshaped ? ["pasp"] : ["pasp", "clap"], from: source.sampleDescription, into: video.sampleDescription)
        let frameSize = reshaped ? SampleDescription.frameSize(video.sampleDescription) : nil
        if reshaped, frameSize == nil { throw MediaAnalyzer.Failure(reason: "internal error: the rendered movie's frame size cannot be read") }
        let original = open(path, O_RDONLY | O_CLOEXEC), rendered = open(encoded, O_RDONLY | O_CLOEXEC)
        defer {
            if original >= 0 { close(original) }
            if rendered >= 0 { close(rendered) }
        }
        guard original >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
        guard rendered >= 0 else { throw LibraryError.io(path: encoded, operation: "open", errno: errno) }
        var plan = try MovieRewriter.layout(
            replacing: source.id, moov: originalMoov, fileSize: originalSize, topLevel: topLevel, sampleDescription: description,
            samples: samples, editListShift: shift, frameSize: frameSize)
        // A Live Photo render's own content identifier, in the QuickTime keys.
        if let (old, new) = identifier { RenderIdentifier.replace(old, with: new, in: &plan.moov) }
        return try AtomicFile.streamTemporary(in: scratch, readOnly: true) { out in
            try out.write(plan.head)
            // Runs of pieces that follow each other in one file are copied as one.
            var run: (fromOriginal: Bool, offset: Int, size: Int)?
            func flush() throws {
                guard let r = run else { return }
                try out.copy(
                    from: r.fromOriginal ? original : rendered, r.fromOriginal ? path : encoded, offset: Int64(r.offset), size: Int64(r.size))
                run = nil
            }
            for piece in plan.pieces {
                let (fromOriginal, offset, size): (Bool, Int, Int)
                switch piece {
                case .original(let o, let n): (fromOriginal, offset, size) = (true, o, n)
                case .replacement(let o, let n): (fromOriginal, offset, size) = (false, o, n)
                }
                if let r = run, r.fromOriginal == fromOriginal, r.offset + r.size == offset {
                    run!.size += size
                } else {
                    try flush()
                    run = (fromOriginal, offset, size)
                }
            }
            try flush()
            try out.write(plan.moov)
        }
    }

    /// How the recipe makes each frame: from the frame averaged down to its working size
    /// alone when that is all it needs of the picture (comic: the decoded frame is never
    /// converted to RGB at full size, nor averaged from it), and then, for a comic alone,
    /// straight into the encoder's planes; else from the whole frame.
    static func drawing(_ recipe: FilterRecipe) -> VideoRenderer.FrameDrawing {
        // What the recipe needs of a frame does not depend on the frame's size.
        guard !recipe.steps.isEmpty, recipe.treatsEveryDirectionAlike,
            let needs = RegionRendering(recipe: recipe, width: 16, height: 16), needs.summaryAloneSize != nil
        else {
            return .whole { frame, orientation in recipe.steps.isEmpty ? frame : recipe.apply(toStored: frame, shownIn: orientation) }
        }
        let size = { (width: Int, height: Int) in RegionRendering(recipe: recipe, width: width, height: height)!.summaryAloneSize! }
        if needs.drawsYCbCr {
            return .fromAverageToYCbCr(size: size) { averaged, planes in
                let rendering = RegionRendering(recipe: recipe, width: planes.width, height: planes.height)!
                rendering.summarize(averaged: averaged)
                rendering.draw(into: planes)
            }
        }
        return .fromAverage(size: size) { averaged, frame in
            let rendering = RegionRendering(recipe: recipe, width: frame.width, height: frame.height)!
            rendering.summarize(averaged: averaged)
            rendering.draw(&frame, x: 0, y: 0)
        }
    }

    /// A movie's `moov` box, the file's size, and its other top-level boxes but the media
    /// (ftyp, …, whole, in order), from one walk over the box headers.
    static func head(of path: String) throws -> (moov: [UInt8], fileSize: Int, others: [(type: String, box: [UInt8])]) {
        guard let boxes = FileReading.topLevelBoxes(of: path), let last = boxes.last else {
            throw MediaAnalyzer.Failure(reason: "\(path): the movie's boxes do not add up")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        var moov: [UInt8]?
        var others: [(type: String, box: [UInt8])] = []
        for box in boxes where !["mdat", "free", "skip", "wide"].contains(box.type) {
            guard box.size <= 64 << 20 else { throw MediaAnalyzer.Failure(reason: "\(path): a \(box.type) box of \(box.size) bytes") }
            let bytes = try FileReading.bytes(fd, path, offset: box.offset, count: Int(box.size))
            if box.type == "moov" { moov = moov ?? bytes } else { others.append((box.type, bytes)) }
        }
        guard let moov else { throw MediaAnalyzer.Failure(reason: "\(path) has no moov box") }
        return (moov, Int(last.offset + last.size), others)
    }

    /// A movie's `moov` box and the file's size, read without its media data.
    static func moov(of path: String) throws -> (box: [UInt8], fileSize: Int) {
        guard let found = FileReading.topLevelBox("moov", of: path) else {
            throw MediaAnalyzer.Failure(reason: "\(path) has no readable moov box (or one over 64 MB)")
        }
        return found
    }
}
