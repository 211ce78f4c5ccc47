/// The virtual camera's microphone: the sound of its scene (`SyntheticScene.sound`), on
/// the camera's own clock: a quiet room tone, and a click at each flash of the scene's
/// lamp. Every machine and every test records sound with it, and a click lands on the
/// frame that shows its flash, which is how sound and picture are tested to be in step.
/// Paced in real time: a chunk comes when its last sample has been "heard".
public final class VirtualMicrophone: AudioSource {
    public let name = "virtual"
    public let sampleRate: Int
    /// Samples per chunk: 10 ms, as a sound card's period.
    let chunk: Int
    private let camera: VirtualCamera
    private var next = 0
    private var running = false

    public init(camera: VirtualCamera, sampleRate: Int = 48_000) {
        self.camera = camera
        self.sampleRate = sampleRate
        chunk = sampleRate / 100
    }

    public func start() throws {
        guard camera.isStreaming else { throw CaptureError.failed("virtual microphone: its camera is not streaming") }
        next = 0
        running = true
    }

    public func read() throws -> AudioChunk? {
        guard running else { return nil }
        let first = next
        next += chunk
        // Heard once its last sample's moment has come, on the camera's clock.
        if camera.realTime { camera.waitUntil(Double(next) / Double(sampleRate)) }
        let samples = SyntheticScene.sound(from: first, count: chunk, sampleRate: sampleRate)
        return AudioChunk(samples: samples, time: Double(first) / Double(sampleRate))
    }

    public func stop() { running = false }
}
