import Imaging

/// What one photo capture asks for, as AVCapturePhotoSettings does.
public struct PhotoSettings: Sendable {
    public enum FileFormat: String, Sendable, CaseIterable {
        case heic, jpeg
        public var fileExtension: String { self == .heic ? "HEIC" : "JPG" }
    }

    /// AVCam's photo quality prioritization: how much time a photo may take.
    public enum QualityPrioritization: String, Sendable, CaseIterable {
        /// One frame, as it comes.
        case speed
        /// Three frames merged.
        case balanced
        /// Six frames aligned and merged: less noise, more time.
        case quality

        public var frameCount: Int {
            switch self {
            case .speed: return 1
            case .balanced: return 3
            case .quality: return 6
            }
        }
    }

    public var format: FileFormat = .heic
    public var quality: QualityPrioritization = .balanced
    /// EXIF orientation of the photo; nil: the camera's natural orientation.
    public var orientation: EXIFOrientation?
    /// A Live Photo: the still plus a movie from 1.5 s before to 1.5 s after the shutter,
    /// paired by one content identifier (the session must be started with Live Photos).
    public var livePhoto = false
    /// Depth and mattes to attach (HEIC only), from cameras that deliver them.
    public var auxiliary: [AuxiliaryOutput] = []

    public init(format: FileFormat = .heic, quality: QualityPrioritization = .balanced, orientation: EXIFOrientation? = nil, livePhoto: Bool = false) {
        self.format = format
        self.quality = quality
        self.orientation = orientation
        self.livePhoto = livePhoto
    }
}
