import Foundation
import Imaging

/// Decodes every frame of a movie's video, makes a new frame from each
/// (`FrameDrawing`), and encodes them into a MOV holding that one video stream, with the
/// source's frame times, size and colour description (`MovieFrameReader` → drawing →
/// `MovieWriter`). The caller puts the new video back beside the source's other tracks
/// (see `MovieRewriter`).
public enum VideoRenderer {
    /// Seconds of the capped bit rate the encoder's buffer holds: how far above the rate
    /// a stretch of the movie may go.
    public static let bitRateWindow = 0.5

    public struct Options: Sendable {
        /// HEVC or H.264; nil: the source's own (an H.264 movie stays H.264), HEVC for
        /// anything else.
        public var codec: MovieWriter.Codec?
        /// x265/x264 speed preset.
        public var preset = "ultrafast"
        /// Constant rate factor: lower is better quality. 23 keeps a comic-filtered movie
        /// sharp at well under the bytes 20 takes (halftone dots cost bits); the rate cap
        /// below keeps it no heavier than its original.
        public var crf = 23
        /// A ceiling on the video's bit rate (a render: its original's), with a half-second
        /// buffer; nil: the constant rate factor alone decides.
        public var maximumBitRate: Int?
        public init() {}
    }

    /// How each frame of the new video is made.
    public enum FrameDrawing {
        /// From the whole frame as RGB, as stored, with the orientation it is shown in:
        /// the transform turns it upright only if it must (a filter that treats every
        /// direction alike, or geometry folded into the orientation, needs no turn), and
        /// returns it as stored, every frame the same size.
        case whole((PixelBuffer<UInt8>, EXIFOrientation) -> PixelBuffer<UInt8>)
        /// From the frame averaged down to `size(width, height)` alone (RGB, as stored):
        /// `draw` fills the full-size frame (RGB, as stored, its old content not to be
        /// read) from it. The decoded frame is converted at the small size only.
        case fromAverage(size: (Int, Int) -> (width: Int, height: Int), draw: (PixelBuffer<UInt8>, inout PixelBuffer<UInt8>) -> Void)
        /// As `fromAverage`, but `draw` fills the encoder's Y'CbCr 4:2:0 planes (as stored,
        /// BT.709, the movie's range) itself: no RGB frame, no conversion of it.
        case fromAverageToYCbCr(size: (Int, Int) -> (width: Int, height: Int), draw: (PixelBuffer<UInt8>, YCbCr420Planes) -> Void)
    }

    /// Renders the first video stream of `input` into a new MOV at `output`, each frame
    /// made as `drawing` says. `progress` hears (frames done, frames expected; 0 when
    /// unknown) after each frame. Returns the number of frames.
    public static func render(
        input: String, output: String, options: Options = Options(), drawing: FrameDrawing, progress: ((Int, Int) -> Void)? = nil
    ) throws -> Int {
        // One decoder thread a core: the encoder and the drawing keep every core busy, and
        // FFmpeg's own count (a core more) only adds switching and frames in flight. On two
        // cores a Live Photo's edit took 0.1 s less, the movie's alone 0.07 s less (3 runs each).
        let reader = try MovieFrameReader(path: input, decoderThreads: Cores.usable)
        // 8K by 8K: beyond any camera's movie, and what a frame's copies can hold.
        guard reader.width * reader.height <= 8192 * 8192 else {
            throw FFmpegError(message: "the movie's frames are \(reader.width)x\(reader.height); camlib renders movies of up to 8192x8192", call: "render")
        }
        var settings = MovieWriter.Settings(codec: options.codec ?? reader.codec ?? .hevc, width: reader.width, height: reader.height)
        settings.timeBase = reader.timeBase
        settings.frameRate = reader.frameRate > 0 ? reader.frameRate : 30
        settings.preset = options.preset
        settings.crf = options.crf
        if let cap = options.maximumBitRate {
            settings.maximumBitRate = cap
            settings.bitRateWindow = Self.bitRateWindow
        }
        settings.fullRange = reader.fullRange
        settings.colour = reader.colour
        var appended = 0
        // A transform that reshapes frames (a crop) makes them all one new size: the
        // writer is made for the first one's.
        var made: MovieWriter?
        func writer(width: Int, height: Int) throws -> MovieWriter {
            if let made { return made }
            (settings.width, settings.height) = (width, height)
            made = try MovieWriter(path: output, settings: settings)
            return made!
        }
        switch drawing {
        case .whole(let transform):
            while let frame = try reader.next() {
                let filtered = transform(frame.pixels, reader.orientation)
                let writer = try writer(width: filtered.width, height: filtered.height)
                guard filtered.width == settings.width, filtered.height == settings.height else {
                    throw FFmpegError(message: "the filter made frames of \(filtered.width)x\(filtered.height) after \(settings.width)x\(settings.height)", call: "render")
                }
                try writer.append(filtered, pts: frame.pts)
                appended += 1
                progress?(appended, reader.expectedFrames)
            }
        case .fromAverage(let size, let draw):
            let writer = try writer(width: reader.width, height: reader.height)
            let averaged = size(reader.width, reader.height)
            // One full-size frame, drawn over again and again.
            var drawn = PixelBuffer<UInt8>(width: reader.width, height: reader.height, channels: 3)
            while let frame = try reader.next(averagedTo: averaged.width, averaged.height) {
                draw(frame.pixels, &drawn)
                try writer.append(drawn, pts: frame.pts)
                appended += 1
                progress?(appended, reader.expectedFrames)
            }
        case .fromAverageToYCbCr(let size, let draw):
            let writer = try writer(width: reader.width, height: reader.height)
            let averaged = size(reader.width, reader.height)
            while let frame = try reader.next(averagedTo: averaged.width, averaged.height) {
                try writer.append(pts: frame.pts) { draw(frame.pixels, $0) }
                appended += 1
                progress?(appended, reader.expectedFrames)
            }
        }
        let writer = try writer(width: reader.width, height: reader.height)
        try writer.finish()
        return writer.framesWritten
    }
}
