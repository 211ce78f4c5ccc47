import Foundation

/// What a browser is given of an asset's file: kinds it can show whatever the original's
/// format (HEIC, AVIF, 16-bit PNG, HEVC movies).
public enum DisplayKind: String, Sendable, CaseIterable {
    /// The file itself, as the library keeps it.
    case original
    /// A small JPEG in display orientation (320 px on the long side), as import makes.
    case thumbnail
    /// A JPEG in display orientation, 2048 px on the long side at most; a movie's first frame.
    case preview
    /// A movie a browser plays: the file itself when its video is H.264, else an
    /// H.264 proxy with the original's other tracks (sound, Apple's metadata).
    case movie
}

/// A file the gallery serves: where it is, its type, and a tag naming its bytes.
public struct DisplayFile: Sendable, Equatable {
    public let url: URL
    public let mime: String
    /// An HTTP entity tag: the file's sha256 for an original, else the sha256 of the file
    /// it was made from with what was made of it. The same tag always means the same bytes.
    public let tag: String

    public init(url: URL, mime: String, tag: String) {
        (self.url, self.mime, self.tag) = (url, mime, tag)
    }
}

/// Which of an asset's files its current version shows: the edit's render when it has
/// one, else the original. Resource ids, for ``PhotoLibrary/displayFile(asset:resource:kind:)``.
public struct AssetMedia: Sendable, Equatable {
    public var still: Int64?
    public var movie: Int64?
    /// Whether the thumbnail of what it shows is a job not yet done (after
    /// `camlib import --no-wait`): a worker will make it.
    public var thumbnailPending = false
}

/// Why a file cannot be shown.
public enum DisplayError: Error, CustomStringConvertible, Equatable {
    /// The asset has no such file, or the kind does not apply to it.
    case notFound(String)
    /// Making the browser's copy failed: the asset, the file and the cause.
    case cannotMake(kind: DisplayKind, asset: Int64, file: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let what): what
        case .cannotMake(let kind, let asset, let file, let reason): "asset \(asset): cannot make a \(kind.rawValue) of \(file): \(reason)"
        }
    }
}

/// What `camlib display-worker`, the child that makes a browser's copy for `camlib serve`,
/// answers: the file, or why not.
public struct DisplayWorkerAnswer: Codable, Sendable {
    public var path: String?
    public var mime: String?
    public var tag: String?
    /// The asset has no such file (404).
    public var notFound: String?
    /// The file could not be made (422): why, and the library file it was made from.
    public var cannotMake: String?
    public var file: String?

    public init() {}
}
