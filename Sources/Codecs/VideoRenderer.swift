import Imaging

/// Decodes every frame of a movie's video, passes it through a function, and encodes the
/// result into a MOV holding that one video stream, with the source's frame times, size
/// and colour description (`MovieFrameReader` → transform → `MovieWriter`). The caller
/// puts the new video back beside the source's other tracks (see `MovieRewriter`).
public enum VideoRenderer {
    public struct Options: Sendable {
        /// HEVC or H.264; nil: the source's own (an H.264 movie stays H.264), HEVC for
        /// anything else.
        public var codec: MovieWriter.Codec?
        /// x265/x264 speed preset.
        public var preset = "ultrafast"
        /// Constant rate factor: lower is better quality. 23 keeps a comic-filtered
        /// IMG_3582.mov at 36 dB PSNR in 10 MB where 20 took 16 MB (the original is 3 MB:
        /// halftone dots cost bits) and 10% more of x265's time.
        public var crf = 23
        /// A ceiling on the video's bit rate (a render: its original's), with a half-second
        /// buffer; nil: the constant rate factor alone decides.
        public var maximumBitRate: Int?
        public init() {}
    }

    /// Renders the first video stream of `input` into a new MOV at `output`. `transform`
    /// receives each frame as RGB in display orientation (`upright`), or as stored when
    /// the transform treats every direction alike (`upright: false` saves two turns of
    /// every frame), and returns the same size.
    /// `progress` hears (frames done, frames expected; 0 when unknown) after each frame.
    /// Returns the number of frames.
    public static func render(
        input: String, output: String, options: Options = Options(), upright: Bool = true, progress: ((Int, Int) -> Void)? = nil,
        transform: (PixelBuffer<UInt8>) -> PixelBuffer<UInt8>
    ) throws -> Int {
        let reader = try MovieFrameReader(path: input)
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
            settings.bitRateWindow = 0.5
        }
        settings.fullRange = reader.fullRange
        settings.colour = reader.colour
        let writer = try MovieWriter(path: output, settings: settings)
        let orientation = upright ? reader.orientation : .up
        var appended = 0
        while let frame = try reader.next() {
            let filtered = orientation == .up ? transform(frame.pixels) : transform(frame.pixels.applying(orientation)).applying(orientation.inverse)
            guard filtered.width == reader.width, filtered.height == reader.height else {
                throw FFmpegError(message: "the filter changed the frame size", call: "render")
            }
            try writer.append(filtered, pts: frame.pts)
            appended += 1
            progress?(appended, reader.expectedFrames)
        }
        try writer.finish()
        return writer.framesWritten
    }
}
