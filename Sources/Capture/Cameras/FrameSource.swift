import Imaging

/// One frame from a camera: RGB pixels as the sensor delivers them (before any EXIF
/// orientation) and when they were captured.
public struct Frame: Sendable {
    public var pixels: PixelBuffer<UInt8>
    /// Seconds since the stream started, from the camera's own clock.
    public var time: Double
    /// 0, 1, 2, … in delivery order.
    public var number: Int
    /// Depth and mattes at this frame's moment, attached by the session to the shutter
    /// frame of a photo that asks for them (see `FrameSource.sceneTruth(for:)`).
    public var scene: SceneTruth?
    /// Frames the camera dropped just before this one because nobody took them in time.
    public var droppedBefore = 0
    /// The camera's source has ended and this is its last frame again (a replayed file).
    public var heldAfterEnd = false

    public init(pixels: PixelBuffer<UInt8>, time: Double, number: Int, scene: SceneTruth? = nil) {
        self.pixels = pixels
        self.time = time
        self.number = number
        self.scene = scene
    }
}

/// What a camera knows about one instant beside colour, at the frame's size: distance in
/// metres per pixel (0: unknown) and the person's mattes (0–255). The virtual camera knows
/// all of it; a depth camera gives depth, from which the portrait matte is derived.
public struct SceneTruth: Sendable {
    public var depth: PixelBuffer<Float>
    public var portraitMatte: PixelBuffer<UInt8>
    public var skinMatte: PixelBuffer<UInt8>?
    public var hairMatte: PixelBuffer<UInt8>?
    public var teethMatte: PixelBuffer<UInt8>?
    /// The portrait matte was computed from depth, not known.
    public var portraitMatteDerivedFromDepth = false

    public init(
        depth: PixelBuffer<Float>, portraitMatte: PixelBuffer<UInt8>, skinMatte: PixelBuffer<UInt8>? = nil,
        hairMatte: PixelBuffer<UInt8>? = nil, teethMatte: PixelBuffer<UInt8>? = nil
    ) {
        self.depth = depth
        self.portraitMatte = portraitMatte
        self.skinMatte = skinMatte
        self.hairMatte = hairMatte
        self.teethMatte = teethMatte
    }
}

/// A camera as a session drives it: configured once, then frames until stopped.
/// Implementations: `V4L2Camera`, `VirtualCamera`, `FileCamera`. One session owns a source
/// at a time; none of the methods may be called from two threads at once.
public protocol FrameSource: AnyObject {
    var device: CameraDevice { get }
    /// Opens the camera with the configuration nearest to `configuration` it supports
    /// and returns what it applied.
    func start(_ configuration: CameraConfiguration) throws -> CameraConfiguration
    /// Blocks until the next frame. nil: the source has ended (a file camera with no frame).
    /// It must return within seconds, whatever the camera does, for the session waits on
    /// it (a movie for its duration, a photo for its frame): a device that stops
    /// delivering throws `CaptureError.timeout` (`V4L2Camera.frameTimeout`), the file
    /// camera gives a late frame rather than none (`FileCamera.longestWithoutFrame`), and
    /// the virtual camera draws one on time.
    func nextFrame() throws -> Frame?
    /// Lowers (or raises) the frame rate while streaming; returns the rate applied.
    func setFrameRate(_ frameRate: Double) throws -> Double
    func stop()
    /// How the frames are meant to be shown (a replayed movie's track rotation); photos
    /// take it unless the user gives `--orientation`.
    var naturalOrientation: EXIFOrientation { get }
    /// Depth and mattes at a frame's moment, for cameras that know them (the virtual one).
    func sceneTruth(for frame: Frame) -> SceneTruth?
    /// The monotonic-clock second (`CLOCK_MONOTONIC`) of the camera's time 0, by which a
    /// microphone puts its sound on the frames' clock; nil until the camera knows it.
    var clockOrigin: Double? { get }
}

extension FrameSource {
    public var naturalOrientation: EXIFOrientation { .up }
    public var clockOrigin: Double? { nil }
    public func sceneTruth(for frame: Frame) -> SceneTruth? { nil }
}
