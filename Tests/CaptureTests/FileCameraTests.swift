import Capture
import Foundation
import Testing
import TestSupport

/// The `file:` camera on a machine too busy to take its frames on time.
struct FileCameraTests {
    /// A 0.3 s movie of ffmpeg's test pattern (9 frames at 30 fps).
    static func shortMovie(in scratch: ScratchDirectory) throws -> String {
        let movie = scratch.file("short.mov")
        let made = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "9", "-c:v", "libx264", "-pix_fmt", "yuv420p", movie])
        #expect(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// The next frame, or nil when the camera gives none within `seconds` (a hang).
    static func nextFrame(_ camera: FileCamera, within seconds: Double) -> Frame? {
        final class Box: @unchecked Sendable { var frame: Frame? }  // written by one thread, read after the semaphore
        let box = Box(), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let camera = camera
        Thread {
            box.frame = try? camera.nextFrame()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success ? box.frame : nil
    }

    @Test(arguments: [false, true])
    func framesComeEvenWhenEveryFrameOfAPlayWasLate(loop: Bool) throws {
        let scratch = try ScratchDirectory()
        let camera = FileCamera(path: try Self.shortMovie(in: scratch), speed: 1, loop: loop)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 320, height: 240), frameRate: 30))
        defer { camera.stop() }
        // Nobody reads for a second: every frame of the first play is late.
        Thread.sleep(forTimeInterval: 1)
        let first = try #require(Self.nextFrame(camera, within: 5), "no frame within 5 s (loop: \(loop))")
        #expect(first.time >= 0.9, "a frame from \(first.time) s, a second after the start")
        let second = try #require(Self.nextFrame(camera, within: 5))
        #expect(second.time > first.time)
    }

    @Test func aFileDecodedSlowerThanItPlaysStillGivesFrames() throws {
        // At 2000x, no machine decodes a frame before its moment has passed: every frame
        // of every play is late. The camera gives one at least every half second.
        let scratch = try ScratchDirectory()
        let camera = FileCamera(path: try Self.shortMovie(in: scratch), speed: 2000, loop: true)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 320, height: 240), frameRate: 30))
        defer { camera.stop() }
        Thread.sleep(forTimeInterval: 0.2)  // past the first frames' slack
        var times: [Double] = []
        for _ in 0..<3 {
            let frame = try #require(Self.nextFrame(camera, within: 5), "no frame within 5 s")
            times.append(frame.time)
        }
        #expect(times == times.sorted() && Set(times).count == 3, "\(times)")
    }
}
