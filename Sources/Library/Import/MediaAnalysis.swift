import Containers
import Foundation

/// Everything camlib learns about one photo or movie before it enters the library.
/// It crosses the boundary between the import process and its analysis workers as JSON.
public struct MediaAnalysis: Codable, Sendable, Equatable {
    public var path: String
    public var format: MediaFormat
    public var bytes: Int64
    public var sha256: String
    /// ZIP's checksum of the same bytes, computed as they were staged.
    public var crc32: UInt32? = nil
    /// The original's bytes, copied into the library's tmp/ folder, read-only, waiting
    /// to be linked into originals/. Like every file an analysis stages, not fsynced yet:
    /// the import does that just before it links them (`makeStagedFilesDurable()`).
    public var stagedCopy: String
    public var metadata: MediaMetadata
    /// A JPEG written to the library's tmp/ folder, or nil when none could be made.
    public var thumbnail: Thumbnail?
    /// What could not be read, in words; the file is imported anyway.
    public var warnings: [String]
    /// Depth, mattes, gain maps and other auxiliary images of a still.
    public var auxiliaryImages: [StagedAuxiliaryImage] = []
    /// A Motion Photo's movie, cut out of the still into tmp/.
    public var embeddedMovie: StagedMovie?

    /// Every file the analysis wrote into tmp/.
    var stagedFiles: [String] {
        [stagedCopy] + [thumbnail?.temporaryPath, embeddedMovie?.temporaryPath, embeddedMovie?.thumbnail?.temporaryPath].compactMap { $0 }
    }

    /// Fsyncs the staged files, before they are linked into the library: the analysis
    /// writes them without waiting for the disk (see ``AtomicFile``).
    func makeStagedFilesDurable() throws {
        try AtomicFile.makeDurable(stagedFiles)
    }
}

/// An auxiliary image found in a still: its facts, read from the container (its PNG is
/// made when first asked for: ``PhotoLibrary/auxiliaryPNG(_:)``).
public struct StagedAuxiliaryImage: Codable, Sendable, Equatable {
    public var type: AuxiliaryImageType
    public var urn: String?
    public var source: String
    public var width: Int?
    public var height: Int?
    public var bitDepth: Int?
    public var channels: Int?
    public var encoding: AuxiliaryEncoding
    public var problem: String?
}

/// A movie cut out of a Motion Photo, waiting in tmp/.
public struct StagedMovie: Codable, Sendable, Equatable {
    public var temporaryPath: String
    public var sha256: String
    public var bytes: Int64
    public var crc32: UInt32? = nil
    public var format: MediaFormat
    /// Where it was in the still.
    public var offset: Int64
    public var declaredBy: String
    public var note: String?
    public var metadata: MediaMetadata
    /// Its poster frame, like any movie's.
    public var thumbnail: Thumbnail?
}

/// A thumbnail waiting in tmp/ to be published.
public struct Thumbnail: Codable, Sendable, Equatable {
    public var temporaryPath: String
    public var sha256: String
    public var bytes: Int64
    public var width: Int
    public var height: Int
    /// "embedded" when taken from the file's own thumbnail, "decoded" otherwise.
    public var source: String
}

/// The facts kept in the catalog's `metadata` table.
public struct MediaMetadata: Codable, Sendable, Equatable {
    public var capturedAt: CaptureTime?
    public var make: String?
    public var model: String?
    public var software: String?
    public var lensMake: String?
    public var lensModel: String?
    public var location: GeoLocation?
    /// As displayed.
    public var width: Int?
    public var height: Int?
    /// EXIF 1–8: the transform from stored to displayed pixels.
    public var orientation: Int = 1
    public var durationSeconds: Double?
    public var videoCodec: String?
    public var audioCodec: String?
    public var frameRate: Double?
    public var contentIdentifier: String?
    public var livePhotoVideoIndex: Int64?
    /// Seconds into a Live Photo's movie at which the still was taken.
    public var stillImageTime: Double?

    public init() {}
}

/// What analysing one file came to.
public enum AnalysisOutcome: Codable, Sendable, Equatable {
    /// Removes the files this outcome staged in tmp/, for an outcome that is not committed.
    func discardStagedFiles() {
        guard case .analyzed(let a) = self else { return }
        for path in a.stagedFiles { unlink(path) }
    }

    case analyzed(MediaAnalysis)
    /// Its exact bytes are already in the library; found by sha256 before any decoding.
    case alreadyInLibrary(path: String, sha256: String, format: MediaFormat)
    /// Not a format camlib imports; counted, not an error.
    case skipped(path: String, reason: String)
    /// Claims to be (or looks like) a photo or movie but cannot be read.
    case failed(path: String, reason: String)
}
