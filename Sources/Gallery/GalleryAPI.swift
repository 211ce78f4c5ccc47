import Containers
import Filters
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library
import NIOCore

/// The JSON API under /api/ that the page uses, and the files under /media/.
///
/// ```
/// GET  /api/assets?FILTERS&limit=N&after=CURSOR   a page of the timeline, newest first
/// GET  /api/assets/ID                             one asset
/// GET  /api/assets/ID/versions                    its edits, oldest first, and which is current
/// GET  /api/assets/ID/aux                         its auxiliary images (depth, mattes)
/// POST /api/assets/ID/edit    {"filters": [...]}  starts an edit; answers a job to follow
/// POST /api/assets/ID/revert                      the original is the current version again
/// GET  /api/jobs/JOB                              how an edit is going
/// GET  /api/work                                  the library's jobs waiting, running and failed
/// GET  /api/thumbnails/pending?assets=ID,…        which of these assets' thumbnails a worker has still to make
/// GET  /api/places                                every place assets were taken at: city, region, country, countryCode
/// GET  /api/suggest?q=WORD                        the search box's suggestions: [{kind, text}] (place, camera, lens, keyword, album)
/// GET  /media/ID/RESOURCE/{original,thumbnail,preview,movie,aux/TYPE}
/// ```
///
/// Favourites, the trash, albums and keywords: ``addOrganiseRoutes(to:)``; edits of a
/// selection: ``addBatchEditRoutes(to:)``; uploads: ``addUploadRoutes(to:)``; downloads:
/// ``addDownloadRoutes(to:)``; the editor: ``addEditorRoutes(to:)``; the map:
/// ``addMapRoutes(to:)``; the scrubber's months and "On this day": ``addCalendarRoutes(to:)``.
struct GalleryAPI: Sendable {
    let library: PhotoLibrary
    let jobs: EditJobs
    let workers: DisplayWorkers
    let previews: EditPreviewer
    let uploads: Uploads
    let making = OnceAtATime<DisplayFile>()
    let known = DisplayFiles()
    let mapPoints: MapPoints
    let map: MapSettings

    func addRoutes(to router: Router<some RequestContext>) {
        addOrganiseRoutes(to: router)
        addBatchEditRoutes(to: router)
        addUploadRoutes(to: router)
        addDownloadRoutes(to: router)
        addMapRoutes(to: router)
        addCalendarRoutes(to: router)
        addEditorRoutes(to: router)
        router.get("/api/assets") { request, _ in
            return jsonResponse(bytes: try await page(try TimelineQuery.parse(request.uri.formParameters)))
        }
        router.get("/api/assets/:id") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            guard let asset = try await describe([id]).first else { throw HTTPError(.notFound, message: "no asset with id \(id)") }
            return jsonResponse(bytes: asset.json)
        }
        router.get("/api/assets/:id/versions") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            guard let asset = try await describe([id]).first else { throw HTTPError(.notFound, message: "no asset with id \(id)") }
            return try jsonResponse(Versions(asset.asset))
        }
        router.get("/api/assets/:id/aux") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            guard let asset = try await describe([id]).first else { throw HTTPError(.notFound, message: "no asset with id \(id)") }
            return try jsonResponse(asset.asset.aux)
        }
        router.post("/api/assets/:id/edit") { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            guard let edit = try? JSONDecoder().decode(EditRequest.self, from: Data(buffer: body)) else {
                throw HTTPError(.badRequest, message: #"send {"filters": ["comic", "vignette:strength=0.4"]}"#)
            }
            let steps: [FilterStep]
            do {
                steps = try edit.filters.map { try FilterStep(parsing: $0) }
            } catch {
                throw HTTPError(.badRequest, message: "\(error)")
            }
            guard !steps.isEmpty || edit.extend == true else { throw HTTPError(.badRequest, message: "choose at least one filter") }
            guard try await describe([id]).first != nil else { throw HTTPError(.notFound, message: "no asset with id \(id)") }
            try refuseIfReadOnly()
            let jobs = self.jobs
            let extending = edit.extend ?? false
            return try jsonResponse(try await Blocking.run { try jobs.start(asset: id, steps: steps, extending: extending) }, status: .accepted)
        }
        router.post("/api/assets/:id/revert") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            try refuseIfReadOnly()
            let library = self.library
            let changed = try await Blocking.run { try library.revert(asset: id) }
            guard let asset = try await describe([id]).first else { throw HTTPError(.notFound, message: "no asset with id \(id)") }
            return jsonResponse(bytes: Array("{\"reverted\":\(changed),\"asset\":".utf8) + asset.json + Array("}".utf8))
        }
        router.get("/api/jobs/:job") { _, context in
            let job = try context.parameters.require("job")
            let jobs = self.jobs
            guard let state = try await Blocking.run({ try jobs.state(job) }) else { throw HTTPError(.notFound, message: "no edit job \(job)") }
            return try jsonResponse(state)
        }
        router.get("/api/work") { _, _ in
            let library = self.library
            return try jsonResponse(try await Blocking.run { try WorkSummary(library.jobQueueStatus(failedLimit: 0)) })
        }
        router.get("/api/thumbnails/pending") { request, _ in
            let text = request.uri.queryParameters["assets"].map(String.init) ?? ""
            let ids = text.split(separator: ",").compactMap { Int64($0) }
            guard ids.count <= 2000 else { throw HTTPError(.badRequest, message: "ask for at most 2000 assets at once") }
            let library = self.library
            let pending = try await Blocking.run { try library.media(of: ids).filter(\.value.thumbnailPending).keys.sorted() }
            return try jsonResponse(["pending": pending])
        }
        router.get("/api/places") { _, _ in
            let library = self.library
            return try jsonResponse(try await Blocking.run { try library.placeNames() })
        }
        router.get("/api/suggest") { request, _ in
            let library = self.library
            let word = request.uri.formParameters["q"].map(String.init) ?? ""
            guard word.count <= 200 else { throw HTTPError(.badRequest, message: "q: at most 200 characters") }
            return try jsonResponse(try await Blocking.run { try library.searchSuggestions(for: word) })
        }
        router.get("/media/:asset/:resource/:kind") { request, context in
            let asset = try context.parameters.require("asset", as: Int64.self)
            let resource = try context.parameters.require("resource", as: Int64.self)
            guard let kind = DisplayKind(rawValue: try context.parameters.require("kind")) else {
                throw HTTPError(.notFound, message: "ask for original, thumbnail, preview or movie")
            }
            let file = try await displayFile(asset: asset, resource: resource, kind: kind)
            return try await FileResponse.respond(file, to: request, immutable: true, context: context)
        }
        router.get("/media/:asset/:resource/aux/:type") { request, context in
            let asset = try context.parameters.require("asset", as: Int64.self)
            let resource = try context.parameters.require("resource", as: Int64.self)
            guard let type = AuxiliaryImageType(rawValue: try context.parameters.require("type")) else {
                throw HTTPError(.notFound, message: "no such auxiliary image type")
            }
            let library = self.library
            let file: DisplayFile
            do {
                let workers = self.workers
                file = try await Blocking.run {
                    try library.madeAuxiliaryFile(asset: asset, resource: resource, type: type)
                        ?? workers.makeAuxiliary(asset: asset, resource: resource, type: type)
                }
            } catch DisplayError.notFound(let what) {
                throw HTTPError(.notFound, message: what)
            } catch let error as DisplayError {
                throw HTTPError(.unprocessableContent, message: error.description)
            } catch let error as AuxiliaryError {
                throw HTTPError(.unprocessableContent, message: error.description)
            }
            return try await FileResponse.respond(file, to: request, immutable: true, context: context)
        }
    }

    /// Edits, reverts and every other change need a library camlib may write.
    func refuseIfReadOnly() throws {
        guard library.isReadOnly else { return }
        throw HTTPError(.forbidden, message: LibraryError.readOnly(path: library.root.path).description)
    }

    // MARK: Reading

    /// A page of the timeline as JSON bytes.
    func page(_ timeline: TimelineQuery) async throws -> [UInt8] {
        let library = self.library
        return try await Blocking.run {
            var assets: [AssetDescription] = []
            var next = try library.assets(matching: timeline.query) { assets += $0 }?.description
            guard timeline.backwards else {
                let media = try library.media(of: assets.map(\.id))
                return GalleryAsset.page(assets.map { GalleryAsset($0, media[$0.id]) }, next: next)
            }
            // Read the other way, undated assets come after the newest dated ones: they
            // belong at the timeline's end, not before its start.
            if let undated = assets.firstIndex(where: { $0.cursor.flatMap(AssetCursor.init)?.key == nil }) {
                assets.removeSubrange(undated...)
                next = nil
            }
            let media = try library.media(of: assets.map(\.id))
            return GalleryAsset.page(assets.reversed().map { GalleryAsset($0, media[$0.id]) }, next: nil, previous: next)
        }
    }

    func describe(_ ids: [Int64]) async throws -> [GalleryAsset] {
        let library = self.library
        return try await Blocking.run {
            let assets = try library.describe(ids)
            let media = try library.media(of: ids)
            return assets.map { GalleryAsset($0, media[$0.id]) }
        }
    }

    func displayFile(asset: Int64, resource: Int64, kind: DisplayKind) async throws -> DisplayFile {
        let library = self.library
        let key = "\(asset)/\(resource)/\(kind.rawValue)"
        if let file = known.file(key) { return file }
        do {
            let workers = self.workers
            let file = try await making.run(key) {
                try await Blocking.run {
                    // What must be decoded to be made is made in a child camlib.
                    try library.madeDisplayFile(asset: asset, resource: resource, kind: kind)
                        ?? workers.make(asset: asset, resource: resource, kind: kind)
                }
            }
            known.remember(file, for: key)
            return file
        } catch let error as DisplayError {
            switch error {
            case .notFound(let what): throw HTTPError(.notFound, message: what)
            case .cannotMake: throw HTTPError(.unprocessableContent, message: error.description)
            }
        } catch let error as LibraryError {
            throw HTTPError(.internalServerError, message: error.description)
        }
    }

    // MARK: Bodies

    struct EditRequest: Decodable {
        var filters: [String]
        var extend: Bool?
    }

    /// A filter or adjustment as `camlib edit --help` describes it.
    /// An asset's history: the original, then every adjustment, oldest first.
    struct Versions: Encodable {
        var originalIsCurrent: Bool
        var adjustments: [AssetDescription.Adjustment]

        init(_ asset: AssetDescription) {
            adjustments = asset.adjustments
            originalIsCurrent = !asset.adjustments.contains { $0.current }
        }
    }
}

/// A JSON response of an encodable value; errors go out as `{"error": {"message": "..."}}`
/// through HTTPError.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return jsonResponse(bytes: Array(try encoder.encode(value)), status: status)
}

/// A JSON response of bytes written already.
func jsonResponse(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    headers[.cacheControl] = "no-store"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
}

/// What the page shows of the library's jobs: how many wait, run and failed, and the
/// workers running them.
struct WorkSummary: Encodable, Sendable {
    var waiting = 0
    var running = 0
    var failed = 0
    var workers: Int

    init(_ status: JobQueueStatus) {
        workers = status.workers.count
        for count in status.counts {
            switch count.state {
            case .available: waiting += count.jobs
            case .running: running += count.jobs
            case .failed: failed += count.jobs
            default: break
            }
        }
    }
}
