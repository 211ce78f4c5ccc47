import Codecs
import Containers
import Filters
import Foundation
import Imaging

/// Pictures browsers can show, made from the library's files: stills and movie frames
/// decoded in display orientation and written as JPEG, movies re-encoded as H.264.
enum DisplayRendering {
    /// Quality of previews: the picture a person looks at, larger than a thumbnail.
    static let previewQuality = 85

    /// Files being made at once, at most: one per core.
    static let workers = DispatchSemaphore(value: Cores.usable)

    /// A still's pixels in display orientation, scaled to fit `maxSide`.
    static func orientedStill(path: String, maxSide: Int) throws -> PixelBuffer<UInt8> {
        let header = try FileReading.prefix(of: path, count: 4096)
        switch MediaFormat.sniff(header) {
        case .jpeg:
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
            let orientation = exifOrientation(try JPEGSegments(parsing: bytes).exifTIFF)
            let decoded = try JPEGCodec.decode(bytes, atLeast: maxSide)
            return try PixelScaler.scaledToFit(decoded.pixels, maxSide: maxSide).applying(orientation)
        case .heif, .avif:
            // libheif applies irot/imir: the pixels come out as displayed.
            return try HEIFFile(path: path).primaryImage().decodeScaled(maxSide: maxSide)
        case .png:
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
            let orientation = exifOrientation(try PNGChunks(parsing: bytes).exifTIFF)
            return try PNGCodec.decodeScaled(bytes, maxSide: maxSide).applying(orientation)
        case let format?:
            throw MediaAnalyzer.Failure(reason: "\(format.displayName) is not a still")
        case nil:
            throw MediaAnalyzer.Failure(reason: "its first bytes match no format camlib reads")
        }
    }

    /// The orientation an Exif block gives (unreadable or absent: as stored).
    private static func exifOrientation(_ tiff: ArraySlice<UInt8>?) -> EXIFOrientation {
        var ignored: [String] = []
        return EXIFOrientation(exifValue: MediaAnalyzer.readEXIF(tiff, warnings: &ignored)?.orientation ?? 1)
    }

    /// A movie's first frame in display orientation, scaled to fit `maxSide`.
    static func posterFrame(path: String, maxSide: Int) throws -> PixelBuffer<UInt8> {
        try MovieFile(path: path).posterFrame(maxSide: maxSide)
    }

    /// Whether a browser plays the movie's video as it is (H.264; Chromium and Firefox on
    /// Linux have no HEVC decoder).
    static func isBrowserPlayable(path: String) throws -> Bool {
        try MovieFile(path: path).video?.codec == "h264"
    }

    /// The movie with its video re-encoded as H.264, every other track (sound, Apple's
    /// timed metadata) and the QuickTime keys kept: a MOV in `scratch`. H.264 needs about
    /// twice HEVC's bits for the same picture, so the cap is twice the original's rate.
    static func h264Proxy(path: String, scratch: URL) throws -> AtomicFile.Temporary {
        var options = VideoRenderer.Options()
        options.codec = .h264
        options.preset = "veryfast"
        return try MovieRenderer.render(path: path, recipe: FilterRecipe(steps: []), scratch: scratch, options: options, bitRateCap: 2)
    }
}
