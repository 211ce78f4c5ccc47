import Foundation

/// What a session reports, named after AVCapturePhotoCaptureDelegate's callbacks:
/// `willBeginCapture` (settings resolved), `willCapturePhoto` (the shutter frame),
/// `didFinishProcessingPhoto` (the file is written), `didFinishCapture` (all done for this
/// id); for Live Photos `didFinishRecordingLivePhotoMovie` (the movie's span is captured)
/// and `didFinishProcessingLivePhotoMovie` (its file is written); for movies `didStartRecording`/`didFinishRecording`; and `systemPressure` when the
/// frame rate is lowered, `error` for a failed capture.
public struct CaptureEvent: Sendable, Codable, Equatable {
    public var event: String
    /// The capture's unique id (nil for session-wide events).
    public var id: Int?
    /// Seconds since the session started.
    public var time: Double
    /// The file written, for didFinishProcessingPhoto/didFinishRecording.
    public var path: String?
    public var frameRate: Double?
    public var message: String?
    /// Live Photo movies not yet written (Live Photo events only).
    public var livePhotosInProgress: Int?

    public init(event: String, id: Int?, time: Double, path: String? = nil, frameRate: Double? = nil, message: String? = nil) {
        self.event = event
        self.id = id
        self.time = time
        self.path = path
        self.frameRate = frameRate
        self.message = message
    }

    /// One line of JSON, the `--events` format.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var copy = self
        copy.time = (time * 1000).rounded() / 1000
        return (try? String(decoding: encoder.encode(copy), as: UTF8.self)) ?? "{\"event\":\"\(event)\"}"
    }
}
