extension CaptureSession {
    /// A capture that failed after it was asked for: which one (the id `capturePhoto` or
    /// `startRecording` returned), the file it was to be, and why, as a user reads it:
    /// "capture 3 (CAM_20261124_061502_0A1F_003.HEIC): …: cannot write: No space left on
    /// device".
    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public let capture: Int
        /// The file's name, when the capture had got as far as naming it.
        public let file: String?
        public let reason: String

        public var description: String { "capture \(capture)" + (file.map { " (\($0))" } ?? "") + ": \(reason)" }
    }
}
