import Foundation
import Testing
import TestSupport

@testable import Codecs
@testable import Imaging

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct MovieFileTests {
    @Test func livePhotoMovieCarriesItsKeysAndRotation() throws {
        let movie = try MovieFile(path: Media.path("apple-live-photo/IMG_3582.mov"))
        #expect(movie.metadata["com.apple.quicktime.content.identifier"] == "602FEBB7-6B59-4799-96E6-9C8484D873C7")
        #expect(movie.metadata["com.apple.quicktime.creationdate"] == "2025-05-26T09:27:06-0500")
        let video = try #require(movie.video)
        #expect(video.codec == "hevc" && video.width == 1920 && video.height == 1440)
        #expect(video.orientation == .rotate90CW)
        #expect(video.displayedSize == (1440, 1920))
        #expect(movie.audio?.codec == "pcm_s16le")
        #expect(abs((movie.durationSeconds ?? 0) - 1.91) < 0.001)
    }

    @Test func posterFrameIsOrientedAndScaled() throws {
        let movie = try MovieFile(path: Media.path("apple-live-photo/IMG_3582.mov"))
        let frame = try movie.posterFrame(maxSide: 320)
        #expect(frame.width == 240 && frame.height == 320)
    }

    /// A frame averaged down by the decoder's scaler (what a comic movie is drawn from) is
    /// the frame's own area average: IMG_3582's 1920x1440 frames halved, each pixel the
    /// mean of a 2x2 block of the full-size conversion, but for rounding.
    /// Halved by camlib's own 2x2 average of the decoded planes; a third by swscale's
    /// area filter. Either way each pixel is the mean of the full-size pixels it covers.
    @Test(arguments: [2, 3])
    func aFrameAveragedDownIsTheMeanOfTheFullSizeFrame(factor: Int) throws {
        let path = Media.path("apple-live-photo/IMG_3582.mov")
        let full = try MovieFrameReader(path: path), averaged = try MovieFrameReader(path: path)
        let (w, h) = (1920 / factor, 1440 / factor)
        var frames = 0
        while let big = try full.next() {
            let small = try #require(try averaged.next(averagedTo: w, h))
            #expect(small.pts == big.pts && (small.pixels.width, small.pixels.height) == (w, h))
            var total = 0, largest = 0
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<3 {
                        var sum = 0
                        for dy in 0..<factor {
                            for dx in 0..<factor { sum += Int(big.pixels.components[((factor * y + dy) * 1920 + factor * x + dx) * 3 + c]) }
                        }
                        let mean = (sum + factor * factor / 2) / (factor * factor)
                        let d = abs(mean - Int(small.pixels.components[(y * w + x) * 3 + c]))
                        (total, largest) = (total + d, max(largest, d))
                    }
                }
            }
            let meanDifference = Double(total) / Double(w * h * 3)
            #expect(meanDifference < 1 && largest < 24, "frame \(frames): mean difference \(meanDifference), largest \(largest)")
            frames += 1
            if frames == 3 { break }
        }
        #expect(frames == 3)
    }

    @Test func hostileMoviesFailWithAnError() throws {
        for name in ["Exiv2__exiv2__issue_2366_poc.mp4", "strukturag__libheif__github_15.heic"] {
            #expect(throws: FFmpegError.self) { try MovieFile(path: Media.path("malformed/" + name)) }
        }
    }
}
