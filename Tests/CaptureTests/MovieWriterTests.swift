import Codecs
import Foundation
import Imaging
import Testing

/// MovieWriter's files read back through MovieFrameReader (libavformat), with their
/// orientation, frame times and metadata.
struct MovieWriterTests {
    @Test(arguments: EXIFOrientation.allCases)
    func orientationSurvivesTheDisplayMatrix(_ orientation: EXIFOrientation) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-mw-\(UUID().uuidString).mov").path
        defer { unlink(path) }
        var settings = MovieWriter.Settings(codec: .h264, width: 64, height: 48)
        settings.orientation = orientation
        settings.quickTimeKeys = [("com.apple.quicktime.make", "camlib")]
        settings.creationTime = Date(timeIntervalSince1970: 1_800_000_000)
        let writer = try MovieWriter(path: path, settings: settings)
        for n in 0..<5 {
            let frame = PixelBuffer<UInt8>(width: 64, height: 48, channels: 3, components: [UInt8](repeating: UInt8(n * 40), count: 64 * 48 * 3))
            try writer.append(frame, pts: Int64(n * 20))
        }
        try writer.finish()
        let reader = try MovieFrameReader(path: path)
        #expect(reader.orientation == orientation)
        var times: [Double] = []
        while let f = try reader.next() { times.append(f.seconds) }
        #expect(times.map { ($0 * 30).rounded() } == [0, 1, 2, 3, 4])
        let movie = try MovieFile(path: path)
        #expect(movie.metadata["com.apple.quicktime.make"] == "camlib")
    }
}
