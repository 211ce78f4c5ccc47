import Filters
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library
import NIOCore

/// The editor's API: what its controls are, where an asset's edit starts, and the preview
/// of each change.
///
/// ```
/// GET /api/filters                              the filters an edit can use, with their parameters and group
/// GET /api/assets/ID/editor                     {"from", "steps", "note"}: where the editor starts
/// GET /api/assets/ID/edit-preview?filters=S;S   the steps applied to the photo at 1024 px, as JPEG
/// GET /api/assets/ID/auto?filters=S;S           the light and colour steps `auto` chooses after those steps
/// ```
/// Steps are written as `camlib edit --filter` takes them (`exposure:ev=0.5`), joined by `;`.
extension GalleryAPI {
    /// A filter as the editor shows it.
    struct FilterInfo: Encodable {
        var name: String
        var summary: String
        /// A light or colour adjustment (a slider), not a look.
        var adjustment: Bool
        /// Where the editor puts it: light, colour, look, geometry, depth or auto.
        var group: String
        var parameters: [Parameter]

        struct Parameter: Encodable {
            var name: String
            var defaultValue: Double
            var minimum: Double
            var maximum: Double
            var help: String
            /// The words a choice is written with (`flip`'s direction), in value order.
            var choices: [String]?
        }

        static let light: Set = [ExposureFilter.name, HighlightsFilter.name, ShadowsFilter.name, ContrastFilter.name]
        static let geometry: Set = [CropFilter.name, RotateFilter.name, FlipFilter.name, StraightenFilter.name]

        init(_ filter: any ImageFilter.Type) {
            name = filter.name
            summary = filter.summary
            adjustment = FilterCatalog.adjustments.contains(filter.name) || filter.name == AutoFilter.name
            group =
                switch filter.name {
                case _ where Self.light.contains(filter.name): "light"
                case _ where FilterCatalog.adjustments.contains(filter.name): "colour"
                case _ where Self.geometry.contains(filter.name): "geometry"
                case DepthFilter.name: "depth"
                case AutoFilter.name: "auto"
                default: "look"
                }
            parameters = filter.parameters.map {
                Parameter(
                    name: $0.name, defaultValue: $0.defaultValue, minimum: $0.range.lowerBound, maximum: $0.range.upperBound, help: $0.help,
                    choices: $0.choices)
            }
        }
    }

    /// Where the editor starts for an asset: `from` is original, camlib or apple; `steps`
    /// are what its controls show; `note` says why an edit cannot be resumed.
    struct EditorStart: Encodable {
        var from: String
        var steps: [String]
        var note: String?

        init(_ start: EditStart) {
            switch start {
            case .original:
                (from, steps) = ("original", [])
            case .camlib(let steps):
                (from, self.steps) = ("camlib", steps.map(\.description))
            case .apple(let steps):
                (from, self.steps) = ("apple", steps.map(\.description))
            case .appleUnreproduced(let unreproduced):
                (from, steps) = ("apple", [])
                note =
                    "This edit is Apple's, and camlib cannot reproduce its \(unreproduced.joined(separator: ", ")): the editor starts from the original, and Apply replaces Apple's edit (which stays in the history)."
            case .foreign(let why):
                (from, steps) = ("other", [])
                note = "The current edit \(why): the editor starts from the original."
            }
        }

        enum CodingKeys: String, CodingKey { case from, steps, note }

        /// `note` is always there, null when there is nothing to say.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(from, forKey: .from)
            try c.encode(steps, forKey: .steps)
            try c.encode(note, forKey: .note)
        }
    }

    /// Steps written as `name:key=value,…` joined by `;`; a 400 names what is wrong.
    static func steps(_ request: Request) throws -> [FilterStep] {
        let text = request.uri.queryParameters["filters"].map(String.init) ?? ""
        do {
            return try text.split(separator: ";").map { try FilterStep(parsing: String($0)) }
        } catch {
            throw HTTPError(.badRequest, message: "\(error)")
        }
    }

    func addEditorRoutes(to router: Router<some RequestContext>) {
        router.get("/api/filters") { _, _ in
            try jsonResponse(FilterCatalog.all.map { FilterInfo($0) })
        }
        router.get("/api/assets/:id/editor") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let library = self.library
            do {
                return try jsonResponse(EditorStart(try await Blocking.run { try library.editStart(asset: id) }))
            } catch let error as LibraryError {
                throw HTTPError(.notFound, message: "\(error)")
            }
        }
        router.get("/api/assets/:id/edit-preview") { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let steps = try Self.steps(request)
            let previews = self.previews
            let jpeg = try await withPreviewSource(id) { try previews.preview(asset: id, source: $0, steps: steps) }
            var headers = HTTPFields()
            headers[.contentType] = "image/jpeg"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        router.get("/api/assets/:id/auto") { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let before = try Self.steps(request)
            let previews = self.previews
            let chosen = try await withPreviewSource(id) { try previews.autoSteps(asset: id, source: $0, after: before) }
            return try jsonResponse(["steps": chosen.map(\.description)])
        }
    }

    /// `work`, given the resource the asset's preview is made from, once that preview is
    /// made (as every preview is, in a child); a missing asset or photo is a 404, a recipe
    /// the photo cannot take a 422.
    private func withPreviewSource<T: Sendable>(_ asset: Int64, _ work: @escaping @Sendable (Int64) throws -> T) async throws -> T {
        let library = self.library
        do {
            let source = try await Blocking.run { try library.editPreviewSource(asset: asset) }
            _ = try await displayFile(asset: asset, resource: source, kind: .preview)
            return try await Blocking.run { try work(source) }
        } catch let error as DisplayError {
            throw HTTPError(.notFound, message: error.description)
        } catch let error as EditError {
            // A recipe this photo cannot take (a depth step on a photo without depth).
            throw HTTPError(.unprocessableContent, message: error.description)
        }
    }
}
