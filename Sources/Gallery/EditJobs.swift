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
