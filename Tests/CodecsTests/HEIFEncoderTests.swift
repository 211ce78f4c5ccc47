import Testing

@testable import Codecs
@testable import Imaging

/// A render's still is the same file whatever x265 coded before it in the process: renders
/// are named by their bytes, so an edit made again finds the file it made before. libheif
/// and FFmpeg load the same libx265, which keeps some state for the whole process; settings
/// that it does not share between a still's encoder and a movie's make a still's bytes
/// depend on the movies coded before it.
struct HEIFEncoderTests {
    /// A picture with detail everywhere, so that x265 has blocks to split.
    static func pattern(width: Int, height: Int, seed: Int = 0) -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                (p.components[i], p.components[i + 1], p.components[i + 2]) =
                    (UInt8((x * 7 + y * 3 + seed) & 255), UInt8((x * y + seed) & 255), UInt8(((x ^ y) * 5) & 255))
            }
        }
        return p
    }

    @Test func aStillIsCodedTheSameBeforeDuringAndAfterAMovie() throws {
        var still = HEIFEncoder.Still(pixels: Self.pattern(width: 1000, height: 700))
        still.thumbnailSide = 320
        let before = try HEIFEncoder.encodeRGB(still)
        // A movie at the render's settings (as a Live Photo's edit codes it beside its still).
        let movie = try VideoEncoder(settings: MovieWriter.Settings(codec: .hevc, width: 640, height: 480))
        for frame in 0..<8 { _ = try movie.encode(Self.pattern(width: 640, height: 480, seed: frame * 9), pts: Int64(frame)) }
        let during = try HEIFEncoder.encodeRGB(still)
        _ = try movie.finish()
        let after = try HEIFEncoder.encodeRGB(still)
        // Compared as a whole: the bytes printed would run to hundreds of thousands.
        let (sameDuring, sameAfter) = (during == before, after == before)
        #expect(sameDuring, "coded beside a movie: \(during.count) bytes, alone \(before.count)")
        #expect(sameAfter, "coded after a movie: \(after.count) bytes, before it \(before.count)")
    }
}
