import Filters
import Foundation
import Library

/// Edits started from the page: render jobs in the catalog (``JobKind/render``), run by
/// the workers `camlib serve` starts beside it (or by any `camlib worker`), the same
/// library calls as `camlib edit` makes. A file that crashes a decoder costs that job an
/// attempt, never the gallery; a restart of `serve` loses nothing, as the jobs are rows.
/// The page follows a job by polling ``state(_:)``.
struct EditJobs: Sendable {
    /// What the page is told of a job.
    struct State: Encodable, Sendable {
        var job: String
        var asset: Int64
        /// queued, running, done or failed.
        var state: String
        /// still, then movie (a Live Photo's or Motion Photo's frames).
        var phase: String?
        var framesDone: Int?
        var framesExpected: Int?
        var error: String?
        var warnings: [String] = []
        /// Which attempt runs (2 and 3 after a crash).
        var attempt: Int?
    }

    /// A person waits for it: before the thumbnails and proxies of an import.
    static let priority = -10

    let library: PhotoLibrary

    func start(asset: Int64, steps: [FilterStep], extending: Bool) throws -> State {
        let id = try library.enqueue([
            NewJob(
                kind: .render, asset: asset, arguments: RenderJobArguments(steps: steps, extending: extending).json, dedupeKey: "render:\(asset)",
                priority: Self.priority)
        ])[0]
        return State(job: String(id), asset: asset, state: "queued")
    }

    /// What the page is told of a batch: how many of its edits are done, and those that
    /// failed, each with its asset and why.
    struct BatchState: Encodable, Sendable {
        struct Failure: Encodable, Sendable {
            var asset: Int64
            var error: String
        }

        var batch: String
        var total: Int
        var done: Int
        var running: Int
        /// Waiting their turn.
        var queued: Int
        var failed: Int
        /// Cancelled (`camlib jobs cancel`).
        var cancelled: Int
        var failures: [Failure]
        /// Asked for but not in the library (deleted meanwhile): no job was made.
        var missing: [Int64] = []
    }

    /// Render jobs for `assets` as one batch, after the edits a person waits for in the
    /// viewer (a higher priority number) and before an import's thumbnails.
    func start(assets: [Int64], steps: [FilterStep]) throws -> BatchState {
        var seen = Set<Int64>()
        let unique = assets.filter { seen.insert($0).inserted }
        let present = Set(try library.describe(unique).map(\.id))
        let batch = "gallery-\(UUID().uuidString.lowercased())"
        let arguments = RenderJobArguments(steps: steps, extending: false).json
        let found = unique.filter { present.contains($0) }
        if !found.isEmpty {
            _ = try library.enqueue(
                found.map { NewJob(kind: .render, asset: $0, arguments: arguments, dedupeKey: "render:\($0)", priority: Self.batchPriority) },
                batch: batch)
        }
        var state = try batchState(batch) ?? BatchState(batch: batch, total: 0, done: 0, running: 0, queued: 0, failed: 0, cancelled: 0, failures: [])
        state.missing = unique.filter { !present.contains($0) }
        return state
    }

    /// A selection's edits wait behind one a person watches in the viewer.
    static let batchPriority = -5

    func batchState(_ batch: String) throws -> BatchState? {
        guard batch.hasPrefix("gallery-") else { return nil }
        let progress = try library.jobProgress(batch: batch)
        guard progress.total > 0 else { return nil }
        let failures = try library.failedJobs(batch: batch).map { BatchState.Failure(asset: $0.asset, error: $0.lastError ?? "the edit failed") }
        return BatchState(
            batch: batch, total: progress.total, done: progress.done, running: progress.running,
            queued: progress.total - progress.finished - progress.running, failed: progress.failed, cancelled: progress.cancelled,
            failures: failures)
    }

    func state(_ id: String) throws -> State? {
        guard let number = Int64(id), let job = try library.job(number), job.kind == .render else { return nil }
        var state = State(job: id, asset: job.asset, state: "queued", attempt: job.attempt)
        switch job.state {
        case .available: state.state = "queued"
        case .running: state.state = "running"
        case .done: state.state = "done"
        case .failed: state.state = "failed"
        case .cancelled: (state.state, state.error) = ("failed", job.lastError ?? "the edit was cancelled")
        }
        if job.state == .failed { state.error = job.lastError ?? "the edit failed" }
        struct Progress: Decodable {
            var phase: String?
            var framesDone: Int?
            var framesExpected: Int?
            var warnings: [String]?
        }
        if let text = job.state == .done ? job.result : job.progress,
            let progress = try? JSONDecoder().decode(Progress.self, from: Data(text.utf8))
        {
            (state.phase, state.framesDone, state.framesExpected) = (progress.phase, progress.framesDone, progress.framesExpected)
            state.warnings = progress.warnings ?? []
        }
        return state
    }
}
