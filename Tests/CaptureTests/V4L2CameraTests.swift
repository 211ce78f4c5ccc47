import CV4L2
import Codecs
import Foundation
import Glibc
import Testing

@testable import Capture

/// The V4L2 path through a fake driver at the ioctl boundary.
struct V4L2CameraTests {
    @Test func describesFormatsSizesAndRatesAndMarksConvertedOnes() throws {
        let device = try V4L2Query.describe("/dev/video7", interface: FakeV4L2())
        #expect(device.name == "Fake Cam" && device.driver == "fakedrv" && device.bus == "usb-fake-1")
        #expect(device.capabilities == ["video-capture", "streaming"])
        #expect(device.formats.map(\.fourCC) == ["YUYV", "RGB3"])
        #expect(device.formats.map(\.emulated) == [false, true])
        #expect(device.formats[0].sizes.map(\.size) == [FrameSize(width: 1280, height: 720), FrameSize(width: 640, height: 480)])
        #expect(device.formats[0].sizes[0].frameRates == [30, 15])
        #expect(!device.isDepth && device.largestSize == FrameSize(width: 1280, height: 720))

        let depth = try V4L2Query.describe("/dev/video8", interface: FakeV4L2(card: "Depth", formats: [("Z16 ", false)]))
        #expect(depth.isDepth && depth.auxiliaryOutputs == ["depth"])
    }

    @Test func negotiatesTheNearestFormatAndRate() throws {
        let fake = FakeV4L2()
        let camera = V4L2Camera(path: "/dev/video7", interface: fake)
        let applied = try camera.start(CameraConfiguration(size: FrameSize(width: 700, height: 500), frameRate: 20))
        #expect(applied.size == FrameSize(width: 640, height: 480))
        #expect(applied.frameRate == 15)
        #expect(fake.streaming)
        camera.stop()
        #expect(!fake.streaming && fake.unmapped == 4 && fake.closeCount == 1)
    }

    @Test func cyclesItsBuffersAndStripsRowPadding() throws {
        let fake = FakeV4L2()
        let camera = V4L2Camera(path: "/dev/video7", interface: fake)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30))
        for n in 0..<20 {
            let frame = try #require(try camera.nextFrame())
            #expect(frame.number == n)
            #expect(frame.pixels.width == 640 && frame.pixels.height == 480 && frame.pixels.components.count == 640 * 480 * 3)
            // The fake writes frame n's number into every byte, padding included.
            #expect(frame.pixels.components.allSatisfy { $0 == UInt8(n) })
            #expect(abs(frame.time - Double(n) / 30) < 1e-5)
        }
        // Four buffers, each handed back to the driver after every use.
        #expect(fake.queueCounts.count == 4)
        #expect(fake.queueCounts.values.reduce(0, +) == 4 + 20)
        camera.stop()
    }

    @Test func retriesInterruptedCallsAndCountsDroppedFrames() throws {
        let fake = FakeV4L2()
        fake.failures.interruptEvery = 3
        fake.skipSequenceAt = [5, 6]
        let camera = V4L2Camera(path: "/dev/video7", interface: fake)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30))
        var dropped = 0
        for _ in 0..<10 { dropped += try #require(try camera.nextFrame()).droppedBefore }
        #expect(fake.framesDelivered == 10)
        #expect(dropped == 2)
    }

    @Test func anUnpluggedDeviceIsAClearError() throws {
        let fake = FakeV4L2()
        fake.failures.goneAfter = 3
        let camera = V4L2Camera(path: "/dev/video7", interface: fake)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30))
        for _ in 0..<3 { _ = try camera.nextFrame() }
        #expect(throws: CaptureError.deviceGone("/dev/video7")) { try camera.nextFrame() }
        #expect(CaptureError.deviceGone("/dev/video7").description.contains("went away"))
    }

    @Test func busyAndForbiddenDevicesSayWhatToDo() throws {
        let busy = FakeV4L2()
        busy.failures.open = EBUSY
        #expect(throws: CaptureError.busy("/dev/video7")) {
            try V4L2Camera(path: "/dev/video7", interface: busy).start(CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30))
        }
        #expect(CaptureError.busy("/dev/video7").description.contains("another program"))
        let streaming = FakeV4L2()
        streaming.failures.setFormat = EBUSY
        let camera = V4L2Camera(path: "/dev/video7", interface: streaming)
        #expect(throws: CaptureError.busy("/dev/video7")) {
            try camera.start(CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30))
        }
        #expect(streaming.closeCount == 1)  // a failed start leaves nothing open
        let forbidden = FakeV4L2()
        forbidden.failures.open = EACCES
        do {
            _ = try V4L2Query.describe("/dev/video7", interface: forbidden)
            Issue.record("expected permission denied")
        } catch let error as CaptureError {
            #expect(error == .permissionDenied("/dev/video7"))
            #expect(error.description.contains("'video' group"))
        }
    }

    @Test func aSessionKeepsWhatItCapturedWhenTheDeviceVanishes() throws {
        let fake = FakeV4L2()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-v4l2-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let events = EventLog()
        let session = CaptureSession(
            source: V4L2Camera(path: "/dev/video7", interface: fake),
            configuration: CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30), outputDirectory: dir
        ) { events.append($0) }
        try session.start()
        session.capturePhoto(PhotoSettings(format: .jpeg, quality: .speed))
        session.waitForPhotos()
        // Then the camera is unplugged mid-stream.
        fake.unplug(after: 3)
        while session.isStreaming { usleep(1000) }
        let outcome = session.stop()
        #expect(outcome.results.count == 1)
        #expect(outcome.streamError as? CaptureError == .deviceGone("/dev/video7"))
        #expect(events.names.contains("error"))
        #expect(FileManager.default.fileExists(atPath: outcome.results.first?.path ?? "/nonexistent"))
    }
}

extension V4L2CameraTests {
    @Test func aMovieIsFinishedWhenTheDeviceVanishesMidRecording() throws {
        let fake = FakeV4L2(sizes: [(320, 240)])
        // Frames with moving content, paced like a camera so the recording has a timeline.
        fake.fill = { n, stride, memory in
            usleep(10_000)
            let bytes = memory.assumingMemoryBound(to: UInt8.self)
            for y in 0..<240 { for x in 0..<(320 * 3) { bytes[y * stride + x] = UInt8((x + y + n * 7) & 0xFF) } }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-v4l2-movie-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let events = EventLog()
        let session = CaptureSession(
            source: V4L2Camera(path: "/dev/video7", interface: fake),
            configuration: CameraConfiguration(size: FrameSize(width: 320, height: 240), frameRate: 30), outputDirectory: dir
        ) { events.append($0) }
        try session.start()
        try session.startRecording(codec: .h264)
        while fake.framesDelivered < 20 { usleep(5000) }
        fake.unplug(after: 5)
        while session.isStreaming { usleep(5000) }
        let outcome = session.stop()
        #expect(outcome.streamError as? CaptureError == .deviceGone("/dev/video7"))
        let movie = try #require(outcome.results.first { $0.kind == .movie })
        let reader = try MovieFrameReader(path: movie.path)
        var frames = 0
        while try reader.next() != nil { frames += 1 }
        #expect(frames >= 20, "\(frames) frames")
        #expect(events.names.contains("didFinishRecording"))
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [CaptureEvent] = []
    func append(_ e: CaptureEvent) { lock.withLock { events.append(e) } }
    var all: [CaptureEvent] { lock.withLock { events } }
    var names: [String] { all.map(\.event.rawValue) }
}
