/// Sound as a microphone gives it: mono samples (-1…1) and when the first of them was
/// heard, in seconds on the camera's clock (the clock of `Frame.time`), so the session can
/// put sound and picture in step.
public struct AudioChunk: Sendable {
    public var samples: [Float]
    public var time: Double

    public init(samples: [Float], time: Double) {
        (self.samples, self.time) = (samples, time)
    }
}

/// A microphone as a session drives it: started after its camera, then read until
/// stopped. Implementations: `VirtualMicrophone` (the virtual camera's), `SystemMicrophone`
/// (the system's default input). One session reads a source from one thread.
public protocol AudioSource: AnyObject {
    /// What it is, for messages: "virtual", "ALSA default".
    var name: String { get }
    var sampleRate: Int { get }
    /// Starts hearing; the camera it goes with has started already.
    func start() throws
    /// Blocks until the next chunk; nil when the source has ended.
    func read() throws -> AudioChunk?
    func stop()
}
