import Codecs
import Foundation
import Imaging
import Testing

@testable import Capture

struct VirtualCameraTests {
    let size = FrameSize(width: 320, height: 240)

    @Test func theSceneIsDeterministicPerSeed() {
        let a = SyntheticScene(size: size, seed: 7), b = SyntheticScene(size: size, seed: 7), c = SyntheticScene(size: size, seed: 8)
        #expect(a.render(at: 0.5, number: 3) == b.render(at: 0.5, number: 3))
        #expect(a.render(at: 0.5, number: 3) != c.render(at: 0.5, number: 3))
        // The noise changes from frame to frame; the clean scene does not at one time.
        #expect(a.render(at: 0.5, number: 3) != a.render(at: 0.5, number: 4))
        #expect(a.render(at: 0.5, number: 3, noise: false) == a.render(at: 0.5, number: 4, noise: false))
    }

    @Test func theSceneKnowsItsDepthAndMattes() {
        let scene = SyntheticScene(size: size, seed: 1)
        let truth = scene.truth(at: 0)
        let l = scene.layout(at: 0)
        // The face: below the hair, above the mouth.
        let headX = Int(l.head.x + l.offsetX), headY = Int(l.head.y + l.offsetY + l.head.ry * 0.25)
        #expect(truth.depth[x: headX, y: headY, channel: 0] == SyntheticScene.personDistance)
        #expect(truth.portraitMatte[x: headX, y: headY, channel: 0] == 255)
        #expect(truth.skinMatte![x: headX, y: headY, channel: 0] == 255)
        #expect(truth.depth[x: 2, y: 2, channel: 0] == SyntheticScene.wallDistance)
        #expect(truth.portraitMatte[x: 2, y: 2, channel: 0] == 0)
        let hairY = Int(l.head.y + l.offsetY - l.head.ry * 0.8)
        #expect(truth.hairMatte![x: headX, y: hairY, channel: 0] == 255)
        let mouth = (Int(l.mouth.x + l.offsetX), Int(l.mouth.y + l.offsetY))
        #expect(truth.teethMatte![x: mouth.0, y: mouth.1, channel: 0] == 255)
    }

    @Test func mergingAlignedFramesLowersNoise() throws {
        let scene = SyntheticScene(size: FrameSize(width: 640, height: 480), seed: 3)
        // Frames 1/30 s apart: the camera shakes and the shapes move between them.
        let frames = (0..<6).map { scene.render(at: 1 + Double($0) / 30, number: $0) }
        let clean = scene.render(at: 1, number: 0, noise: false)
        let single = rmse(frames[0], clean), merged = rmse(FrameMerger.merge(frames), clean)
        #expect(single > 4)
        #expect(merged < single * 0.75, "single-frame noise \(single), merged \(merged)")
    }

    @Test func alignmentFindsTheShift() {
        let scene = SyntheticScene(size: FrameSize(width: 640, height: 480), seed: 3)
        let reference = scene.render(at: 0, number: 0, noise: false)
        var shifted = reference
        // Move the picture 5 right and 3 down.
        for y in 0..<480 {
            for x in 0..<640 {
                for c in 0..<3 { shifted[x: x, y: y, channel: c] = reference[x: max(0, x - 5), y: max(0, y - 3), channel: c] }
            }
        }
        let s = FrameMerger.estimateShift(of: shifted, against: reference)
        #expect(s.dx == 5 && s.dy == 3)
    }

    @Test func theVirtualCameraDropsFramesWhenNobodyReadsThem() throws {
        let camera = VirtualCamera(seed: 1)
        _ = try camera.start(CameraConfiguration(size: size, frameRate: 100))
        _ = try camera.nextFrame()
        usleep(200_000)
        let late = try #require(try camera.nextFrame())
        #expect(late.droppedBefore >= 10)
        #expect(late.time >= 0.19)
    }

    @Test func pressureLowersTheFrameRate() throws {
        // A camera whose frames keep being dropped (every other one): the session lowers
        // the rate by a third, says so, and keeps doing so while the drops go on.
        let camera = DroppingCamera()
        let events = EventLog()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-pressure-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = CaptureSession(
            source: camera, configuration: CameraConfiguration(size: FrameSize(width: 64, height: 48), frameRate: 60), outputDirectory: dir
        ) { events.append($0) }
        try session.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, events.all.filter({ $0.event == .systemPressure }).count < 2 { usleep(20_000) }
        session.stop()
        let pressure = events.all.filter { $0.event == .systemPressure }
        #expect(pressure.map(\.frameRate) == [40, 27], "\(pressure)")
        #expect(camera.rates == [40, 27])
        #expect(pressure.first?.message?.contains("frame rate lowered to 40 fps") == true)
        // At least two seconds between changes: the camera gets time to settle.
        if pressure.count == 2 { #expect(pressure[1].time - pressure[0].time >= 2) }
    }

    @Test func aMovieLastsItsMaximumDurationHoweverLateItIsStopped() throws {
        // A camera running faster than real time: by the time the caller wakes up to stop,
        // the camera is far past the movie's end, as a loaded machine's would be.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-duration-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = CaptureSession(
            source: VirtualCamera(seed: 3, realTime: false), configuration: CameraConfiguration(size: FrameSize(width: 64, height: 64), frameRate: 30),
            outputDirectory: dir)
        try session.start()
        try session.startRecording(codec: .h264, maximumDuration: 0.5)
        let deadline = Date().addingTimeInterval(20)
        while !session.hasRecordedItsDuration && Date() < deadline { usleep(1000) }
        #expect(session.hasRecordedItsDuration)
        let past = session.now
        while session.now < past + 0.5 { usleep(1000) }  // half a second of the camera's time late
        session.stopRecording()
        let outcome = session.stop()
        let movie = try #require(outcome.results.first { $0.kind == .movie }, "\(outcome.failures)")
        let reader = try MovieFrameReader(path: movie.path)
        var times: [Double] = []
        while let frame = try reader.next() { times.append(frame.seconds) }
        #expect(!times.isEmpty && times.count <= 15, "\(times.count) frames")
        #expect(times.allSatisfy { $0 < 0.5 }, "\(times)")
    }

    @Test func aPhotoThatCannotBeWrittenFailsNamingItsFileAndWhy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-unwritable-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = CaptureSession(
            source: VirtualCamera(seed: 2), configuration: CameraConfiguration(size: size, frameRate: 30), outputDirectory: dir)
        try session.start()
        // The folder goes away under the session (a disk unmounted, a folder deleted).
        try FileManager.default.removeItem(atPath: dir)
        let id = session.capturePhoto(PhotoSettings(format: .jpeg, quality: .speed))
        session.waitForPhotos()
        let outcome = session.stop()
        #expect(outcome.results.isEmpty)
        let failure = try #require(outcome.failures.first)
        #expect(failure.capture == id)
        let file = try #require(failure.file)
        #expect(file.hasPrefix("CAM_") && file.hasSuffix("_001.JPG"), "\(file)")
        #expect(failure.reason == "\(dir)/\(file): cannot write: No such file or directory")
        #expect("\(failure)" == "capture \(id) (\(file)): \(failure.reason)")
    }

    @Test func eventsComeInAVCamsOrder() throws {
        let events = EventLog()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-events-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = CaptureSession(
            source: VirtualCamera(seed: 2), configuration: CameraConfiguration(size: size, frameRate: 30), outputDirectory: dir
        ) { events.append($0) }
        try session.start()
        let first = session.capturePhoto(PhotoSettings(format: .jpeg, quality: .balanced))
        let second = session.capturePhoto(PhotoSettings(format: .heic, quality: .speed))
        #expect(first != second)
        session.waitForPhotos()
        let outcome = session.stop()
        #expect(outcome.results.count == 2 && outcome.failures.isEmpty)
        for id in [first, second] {
            let names = events.all.filter { $0.id == id }.map(\.event.rawValue)
            #expect(names == ["willBeginCapture", "willCapturePhoto", "didFinishProcessingPhoto", "didFinishCapture"])
        }
        // Each photo has its own shutter frame.
        let shutters = events.all.filter { $0.event == .willCapturePhoto }.map(\.time)
        #expect(Set(shutters).count == 2)
        let line = try #require(events.all.first).jsonLine
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "willBeginCapture" && json["id"] as? Int == first && json["time"] is Double)
    }

    /// Frames paced at the configured rate, each after one the camera had to drop.
    final class DroppingCamera: FrameSource, @unchecked Sendable {
        private(set) var rates: [Double] = []
        private var rate = 60.0
        private var number = 0
        private var pacer = Pacer()
        var device: CameraDevice { VirtualCamera.description() }
        func start(_ c: CameraConfiguration) throws -> CameraConfiguration {
            rate = c.frameRate
            pacer.start()
            return c
        }
        func nextFrame() throws -> Frame? {
            number += 1
            pacer.wait(until: pacer.elapsed + 1 / rate)
            var frame = Frame(pixels: PixelBuffer(width: 64, height: 48, channels: 3), time: pacer.elapsed, number: number)
            frame.droppedBefore = 1
            return frame
        }
        func setFrameRate(_ r: Double) throws -> Double {
            rates.append(r)
            rate = r
            return r
        }
        func stop() {}
    }

    func rmse(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>) -> Double {
        var sum = 0.0
        for i in a.components.indices {
            let d = Double(a.components[i]) - Double(b.components[i])
            sum += d * d
        }
        return (sum / Double(a.components.count)).squareRoot()
    }
}
