import Foundation
import Imaging

/// A Z16 depth camera paired with the colour camera (`capture --depth-device`), the way a
/// RealSense-style device shows up in V4L2: a separate node delivering 16-bit distances.
/// Its own thread keeps the newest depth frame; a photo takes the newest one at its
/// shutter. V4L2 says nothing about how the two sensors sit, so the depth frame is scaled
/// to the photo's frame as if both saw the same field of view (no registration), and the
/// portrait matte is derived from depth: the nearest surface and what lies within 0.5 m
/// behind it (the matte says so in its XMP, and the catalog keeps that).
/// `@unchecked Sendable`: its thread and the photo threads share only `latest`, `running`, `stopping` and `failure`, under `lock`.
public final class DepthCamera: @unchecked Sendable {
    public let path: String
    /// The device's depth unit (RealSense: 1 mm).
    public let metresPerUnit: Double
    /// A portrait matte keeps what lies within this many metres behind the nearest surface.
    public static let subjectDepth: Float = 0.5

    private let camera: V4L2Camera
    private let lock = NSLock()
    private var latest: PixelBuffer<UInt16>?
    private var stopping = false
    private var running = false
    private let finished = DispatchSemaphore(value: 0)
    private var failure: Error?

    public convenience init(path: String, metresPerUnit: Double = 0.001) {
        self.init(path: path, interface: LibV4L2(), metresPerUnit: metresPerUnit)
    }

    package init(path: String, interface: V4L2Interface, metresPerUnit: Double = 0.001) {
        self.path = path
        self.metresPerUnit = metresPerUnit
        camera = V4L2Camera(path: path, interface: interface, pixelFormat: "Z16 ")
    }

    /// Opens the device at the size nearest `size` and starts reading depth frames.
    public func start(size: FrameSize, frameRate: Double) throws {
        _ = try camera.start(CameraConfiguration(size: size, frameRate: frameRate))
        lock.withLock {
            running = true
            stopping = false
        }
        let thread = Thread { [self] in
            defer {
                lock.withLock { running = false }
                finished.signal()
            }
            while !lock.withLock({ stopping }) {
                do {
                    let (depth, _) = try camera.nextDepthFrame()
                    lock.withLock { latest = depth }
                } catch {
                    lock.withLock { failure = error }
                    return
                }
            }
        }
        thread.name = "camlib.depth"
        thread.start()
    }

    /// Why the depth camera stopped delivering, if it did.
    public var error: Error? { lock.withLock { failure } }

    /// Depth (metres, 0 where the device measured nothing) and the derived portrait matte,
    /// at `size`; nil before the first depth frame.
    public func truth(size: FrameSize) -> SceneTruth? {
        guard let raw = lock.withLock({ latest }) else { return nil }
        var depth = PixelBuffer<Float>(width: size.width, height: size.height, channels: 1)
        let scale = Float(metresPerUnit)
        for y in 0..<size.height {
            let sy = min(raw.height - 1, y * raw.height / size.height)
            for x in 0..<size.width {
                let sx = min(raw.width - 1, x * raw.width / size.width)
                depth.components[y * size.width + x] = Float(raw.components[sy * raw.width + sx]) * scale
            }
        }
        var truth = SceneTruth(depth: depth, portraitMatte: Self.matte(from: depth))
        truth.portraitMatteDerivedFromDepth = true
        return truth
    }

    /// 255 where the depth is known and within `subjectDepth` of the nearest surface (the
    /// 2nd percentile, so a few noisy pixels do not decide it).
    static func matte(from depth: PixelBuffer<Float>) -> PixelBuffer<UInt8> {
        let known = depth.components.filter { $0 > 0 }.sorted()
        var matte = PixelBuffer<UInt8>(width: depth.width, height: depth.height, channels: 1)
        guard !known.isEmpty else { return matte }
        let nearest = known[known.count / 50]
        let limit = nearest + subjectDepth
        for i in depth.components.indices where depth.components[i] > 0 && depth.components[i] <= limit { matte.components[i] = 255 }
        return matte
    }

    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            stopping = true
            return running
        }
        if wasRunning { finished.wait() }
        camera.stop()
    }
}
