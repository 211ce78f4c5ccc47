import Foundation

/// What a session reports, named after AVCapturePhotoCaptureDelegate's callbacks. On
/// `--events` each is one line of JSON whose `event` is the kind's name.
public struct CaptureEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A capture's settings are resolved (its id is new).
        case willBeginCapture
        /// The shutter frame of a photo or Live Photo.
        case willCapturePhoto
        /// A photo's file is written (`path`).
        case didFinishProcessingPhoto
        /// A Live Photo's movie span is captured (`message`: its frames).
        case didFinishRecordingLivePhotoMovie
        /// A Live Photo's movie file is written (`path`).
        case didFinishProcessingLivePhotoMovie
        /// A movie recording started (`path`: where it will be).
        case didStartRecording
        /// A movie is written (`path`; `message`: frames, drops).
        case didFinishRecording
        /// Everything of this capture id is done, written or failed.
        case didFinishCapture
        /// The frame rate was lowered because encoding fell behind (`frameRate`, `message`).
        case systemPressure
        /// The camera delivered its last frame (a file camera's movie ended, a device went
        /// away); session-wide, no id.
        case didEndStream
        /// A capture (with its id) or the camera (without) failed; `message` says why.
        case error
    }

    public var event: Kind
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

    public init(event: Kind, id: Int?, time: Double, path: String? = nil, frameRate: Double? = nil, message: String? = nil) {
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
        return (try? String(decoding: encoder.encode(copy), as: UTF8.self)) ?? "{\"event\":\"\(event.rawValue)\"}"
    }
}
