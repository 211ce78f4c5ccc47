import Codecs
import Foundation
import Imaging
import Testing

@testable import Capture

/// A Z16 depth camera (a fake driver) paired with the virtual colour camera.
struct DepthCameraTests {
    /// Left half 1 m away (the subject), right half 3 m (the wall), one hole.
    func depthFake() -> FakeV4L2 {
        let fake = FakeV4L2(card: "Depth", formats: [("Z16 ", false)], sizes: [(320, 240)], rates: [30])
        fake.fill = { _, stride, memory in
            for y in 0..<240 {
                let row = (memory + y * stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<320 {
                    let mm: UInt16 = (x == 300 && y == 10) ? 0 : (x < 160 ? 1000 : 3000)
                    row[2 * x] = UInt8(mm & 0xFF)
                    row[2 * x + 1] = UInt8(mm >> 8)
                }
            }
            // At the camera's 30 frames a second, as a real one delivers them: the fake
            // otherwise hands out frames as fast as the reading thread asks, and that
            // thread spun a core for as long as the test ran. With the other suites
            // running beside it on a two-core machine, a photo waiting for its depth
            // then took minutes.
            usleep(33_000)
        }
        return fake
    }

    @Test func z16FramesBecomeMetresAndADerivedMatte() throws {
        let depth = DepthCamera(path: "/dev/video9", interface: depthFake())
        try depth.start(size: FrameSize(width: 320, height: 240), frameRate: 30)
        defer { depth.stop() }
        var truth: SceneTruth?
        for _ in 0..<10_000 where truth == nil {  // up to 10 s for the first frame on a busy machine
            truth = depth.truth(size: FrameSize(width: 640, height: 480))
            usleep(1000)
        }
        let t = try #require(truth)
        #expect(t.depth.width == 640 && t.depth.height == 480)
        #expect(abs(t.depth[x: 10, y: 100, channel: 0] - 1.0) < 1e-6 && abs(t.depth[x: 600, y: 100, channel: 0] - 3.0) < 1e-6)
        #expect(t.depth[x: 600, y: 20, channel: 0] == 0)  // the hole stays unknown
        #expect(t.portraitMatte[x: 10, y: 100, channel: 0] == 255 && t.portraitMatte[x: 600, y: 100, channel: 0] == 0)
        #expect(t.portraitMatteDerivedFromDepth && t.skinMatte == nil)
    }

    @Test func aPhotoCarriesTheDepthCamerasDepthAndSaysTheMatteIsDerived() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-depth-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = CaptureSession(
            source: VirtualCamera(seed: 4), configuration: CameraConfiguration(size: FrameSize(width: 640, height: 480), frameRate: 30),
            outputDirectory: dir)
        session.depthCamera = DepthCamera(path: "/dev/video9", interface: depthFake())
        try session.start()
        usleep(200_000)  // the depth camera's first frames
        var settings = PhotoSettings(format: .heic, quality: .speed)
        settings.auxiliary = [.depth, .portraitMatte]
        session.capturePhoto(settings)
        session.waitForPhotos()
        let outcome = session.stop()
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        let path = try #require(outcome.results.first?.path)
        let aux = try HEIFFile(path: path).primaryImage().auxiliaryImages().images
        let depth = try #require(aux.first { $0.urn == AuxiliaryOutput.depth.urn })
        let representation = try #require(depth.depthRepresentation)
        #expect(abs((representation.zNear ?? 0) - 1.0) < 1e-4 && abs((representation.zFar ?? 0) - 3.0) < 1e-4)
        let matte = try #require(aux.first { $0.urn == AuxiliaryOutput.portraitMatte.urn })
        let xmp = String(decoding: matte.xmp ?? [], as: UTF8.self)
        #expect(xmp.contains("DerivedFrom=\"depth\""), "\(xmp)")
    }
}
