/// A file and what happened to it, in words.
public struct FileProblem: Codable, Sendable, Equatable {
    public var path: String
    public var message: String
}

/// What an import did. Every input file ends in exactly one of `imported`,
/// `duplicates`, `skipped` or `errors` (unless the import was interrupted).
public struct ImportReport: Codable, Sendable {
    public var library: String
    /// Files found under the given paths.
    public var files = 0
    /// Files copied into the library (photos, movies, sidecars, rendered edits).
    public var imported = 0
    /// Files whose exact bytes the library already holds.
    public var duplicates = 0
    /// Files that are not photos or movies camlib imports.
    public var skipped = 0
    public var errors: [FileProblem] = []
    public var skippedFiles: [FileProblem] = []
    /// Imported files with something unreadable in them.
    public var warnings: [FileProblem] = []
    public var assetsCreated = 0
    public var livePhotosPaired = 0
    /// Sidecars and rendered edits attached to assets.
    public var attached = 0
    /// Assets created or changed by this import.
    public var assetIDs: [Int64] = []
    /// Assets in the trash that files of this import are in (a duplicate of a trashed
    /// photo, a movie that joined its trashed still): hidden until restored.
    public var assetsInTrash: [Int64] = []
    public var interrupted = false
    /// Rehearsed (`--dry-run`): what the import would have done; nothing was changed.
    public var dryRun = false
    public var seconds = 0.0
    /// The batch of jobs the import queued (thumbnails that take decoding, browsers'
    /// proxies), when it queued any: `camlib import` runs its thumbnails before it returns.
    public var jobBatch: String?
    /// How the import's jobs stand when it returns.
    public var jobs: ImportJobs?
    /// What happened to each file, in input order, when the import was asked to say
    /// (``ImportOptions/recordsFiles``): the gallery's uploads report per file.
    public var fileOutcomes: [ImportedFile]?

    public init(library: String) {
        self.library = library
    }
}

/// How the jobs an import queued stand: `thumbnails` it waited for (unless `--no-wait`),
/// `waiting` for a worker (the browsers' proxies, and what it did not wait for).
public struct ImportJobs: Codable, Sendable, Equatable {
    public var queued = 0
    public var done = 0
    public var failed = 0
    public var waiting = 0

    public init() {}
}

/// How far an import has come.
public struct ImportProgress: Sendable {
    public var done: Int
    public var total: Int
    public var path: String
}

/// What an import did with one file.
public struct ImportedFile: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// A new asset, or a Live Photo's other half joined to its asset.
        case imported
        /// Its exact bytes were in the library already.
        case duplicate
        /// A sidecar or rendered edit, attached to the asset it belongs to.
        case attached
        /// Not a photo, movie or sidecar camlib takes (`message` says why).
        case skipped
        /// It could not be imported (`message` says why).
        case failed
    }

    public var path: String
    public var outcome: Outcome
    /// The asset it went to or was found in.
    public var asset: Int64?
    /// For a still or movie: whether it was joined to the other half of a Live Photo.
    public var paired: Bool?
    public var message: String?

    /// The message of a file an interrupted import did not reach.
    public static let notReached = "not imported: the import was interrupted before it"

    public init(path: String, outcome: Outcome, asset: Int64? = nil, paired: Bool? = nil, message: String? = nil) {
        self.path = path
        self.outcome = outcome
        self.asset = asset
        self.paired = paired
        self.message = message
    }
}
