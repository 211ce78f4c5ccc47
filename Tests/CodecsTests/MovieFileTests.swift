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

    @Test func hostileMoviesFailWithAnError() throws {
        for name in ["Exiv2__exiv2__issue_2366_poc.mp4", "strukturag__libheif__github_15.heic"] {
            #expect(throws: FFmpegError.self) { try MovieFile(path: Media.path("malformed/" + name)) }
        }
    }
}
