import Codecs
import Foundation

/// The system's default sound input (`SoundInput`: ALSA's `default` through libavdevice),
/// heard beside a camera: each chunk is placed on the camera's clock by the monotonic
/// moment it was heard, against the moment of the camera's time 0
/// (`FrameSource.clockOrigin`). A machine without a sound card fails `start()`, and the
/// session then records without sound and says so once.
public final class SystemMicrophone: AudioSource {
    public var name: String { input?.device ?? "\(driver) \(device)" }
    public let sampleRate: Int
    private let driver: String
    private let device: String
    private let camera: FrameSource
    private var input: SoundInput?
    /// When this microphone started: the origin while the camera has not told its own.
    private var startedAt = 0.0

    public init(beside camera: FrameSource, driver: String = "alsa", device: String = "default", sampleRate: Int = 48_000) {
        (self.camera, self.driver, self.device, self.sampleRate) = (camera, driver, device, sampleRate)
    }

    public func start() throws {
        // Without a sound card ALSA would only print its own errors before failing (its
        // `null` device needs none).
        if driver == "alsa", device != "null", !FileManager.default.fileExists(atPath: "/dev/snd") {
            throw CaptureError.unsupported("this machine has no sound input (no sound card: /dev/snd is missing)")
        }
        do {
            input = try SoundInput(driver: driver, device: device, sampleRate: sampleRate)
        } catch {
            throw CaptureError.unsupported("the \(driver) sound input \(device) cannot be opened: \(error)")
        }
        startedAt = Pacer.now()
    }

    public func read() throws -> AudioChunk? {
        guard let input, let (samples, heardAt) = try input.read() else { return nil }
        return AudioChunk(samples: samples, time: heardAt - (camera.clockOrigin ?? startedAt))
    }

    public func stop() { input = nil }
}
