import Imaging

/// The built-in camera every machine has: a `SyntheticScene` rendered at the configured
/// size and frame rate, paced in real time (or as fast as it renders), deterministic for
/// a seed. It knows its scene's depth and mattes, so it can deliver them with a photo.
public final class VirtualCamera: FrameSource {
    public static let sizes = [FrameSize(width: 1920, height: 1440), FrameSize(width: 1280, height: 960), FrameSize(width: 640, height: 480)]
    public static let frameRates: [Double] = [30, 24, 15]

    public let seed: UInt64
    /// Pace frames to the clock (a camera) or deliver each as soon as it is rendered.
    public var realTime: Bool

    public var device: CameraDevice { Self.description(seed: seed) }

    private var scene: SyntheticScene?
    private var frameRate: Double = 30
    private var pacer = Pacer()
    private var number = 0
    // Time of frame `rateBase` and its number, so the rate can change mid-stream.
    private var rateBaseTime: Double = 0
    private var rateBaseNumber = 0

    public init(seed: UInt64 = 1, realTime: Bool = true) {
        self.seed = seed
        self.realTime = realTime
    }

    public static func description(seed: UInt64 = 1) -> CameraDevice {
        CameraDevice(
            id: "virtual", kind: .virtual, name: "Virtual Camera",
            capabilities: ["video-capture", "streaming"],
            formats: [
                CameraFormatDescription(
                    fourCC: "RGB3", description: "24-bit RGB (rendered)",
                    sizes: sizes.map { .init(size: $0, frameRates: frameRates) })
            ],
            auxiliaryOutputs: ["depth", "portraitMatte", "skin", "hair", "teeth"])
    }

    public func start(_ configuration: CameraConfiguration) throws -> CameraConfiguration {
        let size = configuration.size
        guard size.width >= 64, size.height >= 64, size.width <= 8192, size.height <= 8192, size.width % 2 == 0, size.height % 2 == 0 else {
            throw CaptureError.unsupported("virtual: cannot render \(size) (even sizes from 64x64 to 8192x8192)")
        }
        guard configuration.frameRate > 0, configuration.frameRate <= 120 else {
            throw CaptureError.unsupported("virtual: cannot run at \(configuration.frameRate) frames per second (0 to 120)")
        }
        if scene?.size != size { scene = SyntheticScene(size: size, seed: seed) }
        frameRate = configuration.frameRate
        number = 0
        rateBaseTime = 0
        rateBaseNumber = 0
        pacer.start()
        return CameraConfiguration(size: size, frameRate: frameRate)
    }

    public func nextFrame() throws -> Frame? {
        guard let scene else { throw CaptureError.failed("virtual: the camera is not streaming") }
        var dropped = 0
        if realTime {
            // A sensor's frames come at their times whether or not anyone reads them: a
            // consumer that fell more than a frame behind gets the current frame, and the
            // ones in between are dropped (and counted, for the system-pressure rule).
            let due = Int(((pacer.elapsed - rateBaseTime) * frameRate).rounded(.down)) + rateBaseNumber
            if due > number + 1 {
                dropped = due - number
                number = due
            }
        }
        let time = rateBaseTime + Double(number - rateBaseNumber) / frameRate
        if realTime { pacer.wait(until: time) }
        let pixels = scene.render(at: time, number: number)
        defer { number += 1 }
        var frame = Frame(pixels: pixels, time: time, number: number)
        frame.droppedBefore = dropped
        return frame
    }

    public func setFrameRate(_ rate: Double) throws -> Double {
        guard rate > 0 else { throw CaptureError.unsupported("virtual: frame rate must be positive") }
        rateBaseTime += Double(number - rateBaseNumber) / frameRate
        rateBaseNumber = number
        frameRate = rate
        return rate
    }

    public func stop() { scene = nil }

    public var clockOrigin: Double? { pacer.startedAt }

    /// Between `start` and `stop`.
    var isStreaming: Bool { scene != nil }

    /// Sleeps until `seconds` on the camera's clock (its microphone keeps that time).
    func waitUntil(_ seconds: Double) { pacer.wait(until: seconds) }

    /// The virtual microphone that hears this camera's scene, on its clock.
    public func microphone(sampleRate: Int = 48_000) -> VirtualMicrophone { VirtualMicrophone(camera: self, sampleRate: sampleRate) }

    public func sceneTruth(for frame: Frame) -> SceneTruth? { scene?.truth(at: frame.time) }
}
