import Filters
import Foundation
import Hummingbird
import Library

/// Edits of a selection: one render job per asset, made together as a batch (as
/// `camlib edit ASSET…` makes them) and followed as a whole.
///
/// ```
/// POST /api/edits  {"assets": [ID…], "filters": [...]}   starts them; answers the batch
/// GET  /api/edits/BATCH                                  how far the batch is, and what failed
/// ```
extension GalleryAPI {
    func addBatchEditRoutes(to router: Router<some RequestContext>) {
        router.post("/api/edits") { request, _ in
            let body = try await Self.decode(BatchEditBody.self, request, example: #"{"assets": [1, 2], "filters": ["comic"]}"#)
            let steps: [FilterStep]
            do {
                steps = try body.filters.map { try FilterStep(parsing: $0) }
            } catch {
                throw HTTPError(.badRequest, message: "\(error)")
            }
            guard !steps.isEmpty else { throw HTTPError(.badRequest, message: "choose at least one filter") }
            guard !body.assets.isEmpty else { throw HTTPError(.badRequest, message: "choose at least one asset") }
            try refuseIfReadOnly()
            let jobs = self.jobs
            return try jsonResponse(try await Blocking.run { try jobs.start(assets: body.assets, steps: steps) }, status: .accepted)
        }
        router.get("/api/edits/:batch") { _, context in
            let batch = try context.parameters.require("batch")
            let jobs = self.jobs
            guard let state = try await Blocking.run({ try jobs.batchState(batch) }) else {
                throw HTTPError(.notFound, message: "no batch of edits \(batch)")
            }
            return try jsonResponse(state)
        }
    }

    struct BatchEditBody: Decodable {
        var assets: [Int64]
        var filters: [String]
    }
}
