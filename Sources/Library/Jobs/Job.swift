import Foundation

/// What a job makes (the `job.kind` column, 0019; `repair` since 0021, `place` since 0025).
public enum JobKind: String, Codable, CaseIterable, Sendable, Comparable {
    /// A still's or movie's 320 px thumbnail, recorded as its `thumbnail` resource.
    case thumbnail
    /// A browsers' 2048 px JPEG preview under derived/previews/.
    case preview
    /// A browsers' H.264 copy of a movie under derived/proxies/ (nothing, when the movie
    /// plays in browsers as it is).
    case proxy
    /// An auxiliary image's PNG (depth, a matte) under derived/aux/.
    case auxPNG
    /// An edit: a recipe rendered over the originals and made the current version.
    case render
    /// An asset's missing or damaged derived files made again (`camlib repair`): its
    /// thumbnails, Motion Photo movie, auxiliary images' PNGs and camlib's renders.
    case repair
    /// The names of the places an asset's still and movie were taken at, from their
    /// locations (for files imported before camlib named places).
    case place

    public static func < (a: JobKind, b: JobKind) -> Bool { a.rawValue < b.rawValue }

    /// Kinds in a user's words.
    public var noun: String {
        switch self {
        case .thumbnail: "thumbnail"
        case .preview: "preview"
        case .proxy: "H.264 proxy"
        case .auxPNG: "auxiliary image PNG"
        case .render: "render"
        case .repair: "repair"
        case .place: "place name"
        }
    }
}

/// Where a job is (the `job.state` column).
public enum JobState: String, Codable, CaseIterable, Sendable {
    /// Waiting to be claimed (a retry waits until `runAfter`).
    case available
    /// Claimed by a worker under a lease.
    case running
    case done
    /// Its last attempt failed: `lastError` says why, naming the asset and the file.
    case failed
    case cancelled

    public var isFinished: Bool { self == .done || self == .failed || self == .cancelled }
}

/// A job to add to the queue.
public struct NewJob: Sendable, Equatable {
    public var kind: JobKind
    public var asset: Int64
    /// The file it reads, when it reads one.
    public var resource: Int64?
    /// JSON object: what the kind needs beyond the asset and the file.
    public var arguments: String
    /// One job waiting per key: a new job with the key of a waiting one replaces its
    /// arguments instead of queueing a second.
    public var dedupeKey: String?
    /// Lower runs first.
    public var priority: Int
    public var maxAttempts: Int

    public init(
        kind: JobKind, asset: Int64, resource: Int64? = nil, arguments: String = "{}", dedupeKey: String? = nil, priority: Int = 0,
        maxAttempts: Int = 3
    ) {
        self.kind = kind
        self.asset = asset
        self.resource = resource
        self.arguments = arguments
        self.dedupeKey = dedupeKey
        self.priority = priority
        self.maxAttempts = maxAttempts
    }

    /// The job that makes `kind` of the file `resource`: one waiting per file.
    public static func derived(_ kind: JobKind, asset: Int64, resource: Int64, argument: String? = nil, priority: Int = 0) -> NewJob {
        let arguments = argument.map { String(decoding: try! JSONEncoder().encode(["type": $0]), as: UTF8.self) } ?? "{}"
        return NewJob(
            kind: kind, asset: asset, resource: resource, arguments: arguments,
            dedupeKey: "\(kind.rawValue):\(resource)" + (argument.map { ":" + $0 } ?? ""), priority: priority)
    }
}

/// A job as the catalog holds it.
public struct Job: Sendable, Codable, Equatable {
    public var id: Int64
    public var kind: JobKind
    public var asset: Int64
    public var resource: Int64?
    public var arguments: String
    public var batch: String?
    public var state: JobState
    public var priority: Int
    public var runAfter: String
    public var attempt: Int
    public var maxAttempts: Int
    /// The worker holding it, while it runs.
    public var host: String?
    public var pid: Int32?
    public var leaseUntil: String?
    /// JSON object, while it runs: how far it is.
    public var progress: String?
    public var lastError: String?
    /// JSON object, once done: what it answered (a render's warnings).
    public var result: String?
    public var createdAt: String
    public var startedAt: String?
    public var finishedAt: String?
}

/// A claimed job: the job and the token that proves the claim is still this worker's.
public struct JobLease: Sendable {
    public let job: Job
    public let token: String
}

/// Who runs jobs: this host and process.
public struct WorkerIdentity: Sendable, Equatable, Codable {
    public var host: String
    public var pid: Int32

    public init(host: String, pid: Int32) {
        self.host = host
        self.pid = pid
    }

    /// This process, on this machine: named by `CAMLIB_HOST` when set (containers or
    /// machines whose host names collide), else by the host name.
    public static var current: WorkerIdentity {
        let given = ProcessInfo.processInfo.environment["CAMLIB_HOST"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return WorkerIdentity(host: given.isEmpty ? ProcessInfo.processInfo.hostName : given, pid: getpid())
    }
}

/// Why a job's completion was refused: its lease is no longer this worker's (it expired
/// and another worker took the job over, or the job was cancelled). Nothing the job wrote
/// to the catalog is committed.
public struct LeaseLost: Error, CustomStringConvertible {
    public let job: Int64
    public var description: String { "job \(job): its lease expired and the job is no longer this worker's; nothing was recorded" }
}

/// What the queue holds, for `camlib jobs`.
public struct JobQueueStatus: Sendable, Codable {
    public struct Count: Sendable, Codable, Equatable {
        public var kind: JobKind
        public var state: JobState
        public var jobs: Int
    }

    public struct Worker: Sendable, Codable, Equatable {
        public var host: String
        public var pid: Int32
        public var kinds: [JobKind]
        /// What it runs now.
        public var job: Int64?
        public var jobKind: JobKind?
        public var asset: Int64?
        public var startedAt: String
        public var heartbeatAt: String
    }

    public var counts: [Count]
    public var workers: [Worker]
    /// Failed jobs, the latest first, with their errors.
    public var failed: [Job]
    /// Running jobs.
    public var running: [Job]
}

/// How far a set of jobs made together is.
public struct JobBatchProgress: Sendable, Equatable {
    public var total = 0
    public var done = 0
    public var failed = 0
    public var cancelled = 0
    public var running = 0

    public var finished: Int { done + failed + cancelled }
    public var isFinished: Bool { finished == total }
}

/// How a job's arguments and result are written into the catalog: keys in order, so the
/// same result is the same text whichever process wrote it.
enum JobResultJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
