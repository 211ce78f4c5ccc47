import Filters
import Foundation
import Library
import Synchronization

/// Edits started from the page: each runs on its own thread through the same
/// `PhotoLibrary.edit` as `camlib edit`, and the page follows its progress by polling.
final class EditJobs: Sendable {
    struct State: Encodable, Sendable {
        var job: String
        var asset: Int64
        /// running, done or failed.
        var state: String
        /// still, then movie (a Live Photo's or Motion Photo's frames).
        var phase: String?
        var framesDone: Int?
        var framesExpected: Int?
        var error: String?
        var warnings: [String] = []
        /// When the job started: which finished jobs are forgotten first.
        var started = Date()

        enum CodingKeys: String, CodingKey { case job, asset, state, phase, framesDone, framesExpected, error, warnings }
    }

    private let states = Mutex<[String: State]>([:])

    func start(asset: Int64, library: PhotoLibrary, steps: [FilterStep], extending: Bool) async -> State {
        let id = UUID().uuidString.lowercased()
        let first = State(job: id, asset: asset, state: "running")
        update(id) { $0 = first }
        Thread.detachNewThread { [self] in
            do {
                let result = try library.edit(asset: asset, steps: steps, extending: extending) { progress in
                    self.update(id) { s in
                        switch progress {
                        case .still: s?.phase = "still"
                        case .movieFrames(let done, let expected):
                            s?.phase = "movie"
                            s?.framesDone = done
                            s?.framesExpected = expected
                        }
                    }
                }
                update(id) { s in
                    s?.state = "done"
                    s?.warnings = result.warnings
                }
            } catch {
                update(id) { s in
                    s?.state = "failed"
                    s?.error = "asset \(asset): \(error)"
                }
            }
        }
        return first
    }

    func state(_ id: String) async -> State? {
        states.withLock { $0[id] }
    }

    private func update(_ id: String, _ change: (inout State?) -> Void) {
        states.withLock { states in
            change(&states[id])
            // Finished jobs are kept for the page to read, the latest 200 of them.
            let finished = states.values.filter { $0.state != "running" }
            if finished.count > 200 {
                for old in finished.sorted(by: { $0.started < $1.started }).prefix(finished.count - 200) { states[old.job] = nil }
            }
        }
    }
}
