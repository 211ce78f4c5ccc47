import Codecs
import Containers
import Filters
import Foundation

/// Where a running edit is: the still, then a movie's frames.
public enum EditProgress: Sendable {
    case still
    /// Frames rendered of about `expected` (0 when the movie does not say).
    case movieFrames(done: Int, expected: Int)
}

/// What `camlib edit` did.
public struct EditResult: Sendable {
    public var adjustmentID: Int64
    public var recipe: CamlibRecipe
    /// Absolute paths of the rendered files.
    public var renders: [String]
    public var warnings: [String]
}

extension PhotoLibrary {
    /// Applies filters to an asset: a new adjustment rendered from the original, which
    /// becomes the current version. With `extending`, the current camlib adjustment's
    /// steps come first (the way PhotoKit resumes an edit it can handle).
    public func edit(asset: Int64, steps: [FilterStep], extending: Bool, progress: @escaping (EditProgress) -> Void = { _ in }) throws -> EditResult {
        try edit(asset: asset, steps: steps, extending: extending, progress: progress, fence: nil)
    }

    /// ``edit(asset:steps:extending:progress:)`` whose rows are committed only when
    /// `fence` (run last in the edit's transaction, given what the edit made) does not
    /// throw: a render job's "done while my lease holds", with its result.
    func edit(
        asset: Int64, steps: [FilterStep], extending: Bool, progress: @escaping (EditProgress) -> Void, fence: ((any CatalogConnection, EditResult) throws -> Void)?
    ) throws -> EditResult {
        guard let description = try describe([asset]).first else { throw LibraryError.assetNotFound("with id \(asset)") }
        RenderAllocation.prepare()
        let current = try catalog.read { db in
            try requireNotTrashed(asset, db)
            return try AdjustmentRecord.current(of: asset, db)
        }
        let currentRecipe = current.flatMap(CamlibAdjustment.recipe)
        var resumed: [FilterStep] = []
        if extending {
            switch EditStart(current) {
            case .original:
                throw MediaAnalyzer.Failure(reason: "asset \(asset) has no current edit to extend; use --filter")
            case .camlib(let current):
                guard !steps.isEmpty else {
                    throw MediaAnalyzer.Failure(reason: "the current edit of asset \(asset) is not Apple's: --from-apple has nothing to turn into camlib's steps")
                }
                resumed = current
            case .apple(let apple):
                // Apple's edit, resumed as the camlib steps that reproduce it.
                resumed = apple
            case .appleUnreproduced(let unreproduced):
                throw MediaAnalyzer.Failure(
                    reason: "the current edit of asset \(asset) is Apple's, and camlib cannot reproduce its \(unreproduced.joined(separator: ", ")), so it stays Apple's render; use --filter to start again from the original")
            case .foreign(let why):
                throw MediaAnalyzer.Failure(reason: "the current edit of asset \(asset) \(why); use --filter to start again from the original")
            }
        }
        // Images attached with `camlib aux attach` stay with every later edit, until a
        // revert: the render carries them over from the current version's still.
        let attachments = currentRecipe?.attachments ?? []
        var filters = FilterRecipe(steps: resumed + steps)
        // `auto` is stored as the steps it chose for this photo, so every frame of its
        // movie gets the same ones and a later edit shows them.
        if filters.setsAuto { filters = filters.settingAuto(measuring: try editPreviewPicture(asset: asset)) }
        let recipe = CamlibRecipe(steps: filters.steps, attachments: attachments)
        let extendsID: Int64? = extending || !attachments.isEmpty ? current?.id : nil
        return try render(description, recipe: recipe, extending: extendsID, progress: progress, fence: fence)
    }

    /// The current edit rendered again when it has lost its renders (`camlib repair`): its
    /// recipe over the originals, the files linked to it; no new adjustment is made.
    /// `fence` runs in the transaction that records them.
    func renderCurrentEditAgain(asset: Int64, fence: ((any CatalogConnection) throws -> Void)? = nil) throws -> EditResult {
        guard let description = try describe([asset]).first else { throw LibraryError.assetNotFound("with id \(asset)") }
        let current = try catalog.read { db in try AdjustmentRecord.current(of: asset, db) }
        guard let current, let id = current.id, let recipe = CamlibAdjustment.recipe(current) else {
            throw MediaAnalyzer.Failure(reason: "asset \(asset) has no current camlib edit to render")
        }
        guard recipe.attachments.isEmpty else {
            throw MediaAnalyzer.Failure(
                reason: "its edit carries images attached with `camlib aux attach`, which the library does not keep apart from the render; `camlib revert \(asset)`, then `camlib aux attach` again, makes a new one")
        }
        RenderAllocation.prepare()
        return try render(description, recipe: recipe, extending: nil, renderingFor: id, fence: fence.map { fence in { db, _ in try fence(db) } })
    }

    /// Renders `recipe` over the asset's originals and records it: as a new adjustment that
    /// becomes current, or with `renderingFor`, as the renders of that adjustment.
    func render(
        _ description: AssetDescription, recipe: CamlibRecipe, extending extendsID: Int64?, renderingFor existing: Int64? = nil,
        progress: @escaping (EditProgress) -> Void = { _ in }, fence: ((any CatalogConnection, EditResult) throws -> Void)? = nil
    ) throws -> EditResult {
        let asset = description.id
        let stillResource = description.resources.first { $0.role == .photo }
        let videoResource = stillResource == nil ? description.resources.first { $0.role == .video } : nil
        guard stillResource != nil || videoResource != nil else {
            throw MediaAnalyzer.Failure(reason: "asset \(asset) has no photo or video of its own to edit")
        }
        let movie = description.kind == .live ? description.resources.first { $0.role == .pairedVideo } : nil
        // A Motion Photo's movie (cut out on import) is rendered and put back inside the still.
        let motionMovie = description.kind == .motion ? description.resources.first { $0.role == .pairedVideo } : nil
        if let videoResource {
            return try editVideo(
                asset: asset, video: videoResource, recipe: recipe, extending: extendsID, renderingFor: existing, progress: progress, fence: fence)
        }
        let still = stillResource!
        let auxiliarySource = recipe.attachments.isEmpty ? nil : try currentRender(of: asset, role: .renderedPhoto)
        if recipe.filters.needsDepth {
            // Said before a movie's frames are started, which would be waited for.
            try EditError.naming(asset: asset, still) {
                guard try DepthField.isCarried(by: auxiliarySource ?? still.path) else { throw MediaAnalyzer.Failure(reason: DepthField.missing) }
            }
        }
        let frames: (Int, Int) -> Void = { progress(.movieFrames(done: $0, expected: $1)) }
        // A movie's frames have no depth: the depth of field is the still's alone.
        let movieFilters = recipe.filters.withoutDepth
        let movieWarnings =
            recipe.filters.needsDepth && (movie != nil || motionMovie != nil)
            ? ["the depth of field is drawn on the still only: the \(movie != nil ? "Live Photo's" : "Motion Photo's") movie has no depth map, so its frames keep their focus"]
            : []
        // A Live Photo's render pair gets a content identifier of its own, as Apple's do.
        let identifier = movie == nil ? nil : try RenderIdentifier.pair(for: description, recipe: recipe)
        // (A Motion Photo's movie is a few MB: it goes inside the still in memory.)
        let embedded = try motionMovie.map { movie -> [UInt8] in
            try EditError.naming(asset: asset, movie) {
                let file = try MovieRenderer.render(path: movie.path, recipe: movieFilters, scratch: temporary, progress: frames)
                defer { unlink(file.url.path) }
                return try [UInt8](Data(contentsOf: file.url))
            }
        }
        progress(.still)
        // A Live Photo's movie: every frame through the same recipe, rendered while the
        // still is (and waited for whatever happens to the still).
        let (filters, scratch) = (movieFilters, temporary)
        nonisolated(unsafe) let movieFrames = frames
        let movieWork = movie.map { movie in
            BackgroundWork(name: "camlib.edit-movie") {
                try EditError.naming(asset: asset, movie) {
                    try MovieRenderer.render(path: movie.path, recipe: filters, scratch: scratch, identifier: identifier, progress: movieFrames)
                }
            }
        }
        let render: StillRenderer.Render, staged: AtomicFile.Temporary
        do {
            render = try EditError.naming(asset: asset, still) {
                var render = try StillRenderer.render(
                    path: still.path, recipe: recipe.filters, auxiliarySource: auxiliarySource, embeddedMovie: embedded, identifier: identifier)
                if render.format == .jpeg, !recipe.attachments.isEmpty {
                    render.bytes = try AuxiliaryAttacher.attaching(recipe.attachments, toJPEG: render.bytes)
                }
                return render
            }
            staged = try AtomicFile.writeTemporary(render.bytes, in: temporary, readOnly: true)
        } catch {
            // The movie's file is not left behind.
            if let file = try? movieWork?.value() { unlink(file.url.path) }
            throw error
        }
        defer { unlink(staged.url.path) }
        var stagedMovie: (file: AtomicFile.Temporary, mime: String, ext: String)?
        if let movie, let movieWork {
            let ext = URL(fileURLWithPath: movie.originalName ?? movie.path).pathExtension.lowercased()
            stagedMovie = (try movieWork.value(), movie.mime, ext.isEmpty ? "mov" : ext)
        }
        defer { if let m = stagedMovie { unlink(m.file.url.path) } }
        // The attached images, as the new still holds them, for `aux list` and `--has`.
        let attached = try stageAttachedImages(
            recipe.attachments.map(\.type), inStill: staged.url.path, of: still.originalName ?? URL(fileURLWithPath: still.path).lastPathComponent)
        defer { for a in attached { unlink(a.png.url.path) } }
        let ext = render.format.fileExtension
        var published: [URL] = []
        do {
            return try catalog.write { db in
                let stillID = try ResourceRecord.firstID(asset: asset, role: .photo, db)
                let (stillRender, stillPath) = try recordRender(
                    staged, role: .renderedPhoto, mime: render.format.mimeType, ext: ext, of: asset, derivedFrom: stillID,
                    published: &published, db)
                var renders = [(stillRender, stillPath)]
                if let (file, mime, movieExt) = stagedMovie, let movie {
                    let movieID = try ResourceRecord.id(asset: asset, path: relative(URL(fileURLWithPath: movie.path)), db)
                    renders.append(
                        try recordRender(
                            file, role: .renderedVideo, mime: mime, ext: movieExt, of: asset, derivedFrom: movieID, published: &published, db))
                    // The gallery plays the render: its browsers' copy is made ahead, by a worker.
                    try JobRecord.enqueueProxy(of: renders[renders.count - 1].0, madeFrom: movieID, asset: asset, priority: ImportSession.proxyPriority, db)
                }
                try recordAttachedImages(attached, asset: asset, still: stillRender, published: &published, db)
                let adjustmentID = try recordCamlibAdjustment(recipe, of: asset, extending: extendsID, renders: renders.map(\.0), existing: existing, db)
                let result = EditResult(
                    adjustmentID: adjustmentID, recipe: recipe, renders: renders.map { absolute($0.1).path },
                    warnings: render.warnings + movieWarnings + Self.heavier("still", staged.bytes, than: still)
                        + (stagedMovie.flatMap { m in movie.map { Self.heavier("movie", m.file.bytes, than: $0) } } ?? []))
                try fence?(db, result)
                return result
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }

    /// A video's edit: every frame through the recipe, streamed to a new movie that keeps
    /// the sound, metadata and orientation; it becomes the current version.
    func editVideo(
        asset: Int64, video: AssetDescription.Resource, recipe: CamlibRecipe, extending: Int64?, renderingFor existing: Int64? = nil,
        progress: @escaping (EditProgress) -> Void, fence: ((any CatalogConnection, EditResult) throws -> Void)? = nil
    ) throws -> EditResult {
        let file = try EditError.naming(asset: asset, video) {
            guard !recipe.filters.needsDepth else {
                throw MediaAnalyzer.Failure(reason: "a video carries no depth map, so the depth step cannot run on it")
            }
            return try MovieRenderer.render(path: video.path, recipe: recipe.filters, scratch: temporary) {
                progress(.movieFrames(done: $0, expected: $1))
            }
        }
        defer { unlink(file.url.path) }
        let ext = URL(fileURLWithPath: video.originalName ?? video.path).pathExtension.lowercased()
        var published: [URL] = []
        do {
            return try catalog.write { db in
                let videoID = try ResourceRecord.id(asset: asset, path: relative(URL(fileURLWithPath: video.path)), db)
                let (render, path) = try recordRender(
                    file, role: .renderedVideo, mime: video.mime, ext: ext.isEmpty ? "mov" : ext, of: asset, derivedFrom: videoID,
                    published: &published, db)
                try JobRecord.enqueueProxy(of: render, madeFrom: videoID, asset: asset, priority: ImportSession.proxyPriority, db)
                let adjustmentID = try recordCamlibAdjustment(recipe, of: asset, extending: extending, renders: [render], existing: existing, db)
                let result = EditResult(
                    adjustmentID: adjustmentID, recipe: recipe, renders: [absolute(path).path], warnings: Self.heavier("movie", file.bytes, than: video))
                try fence?(db, result)
                return result
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }

    /// A render may not weigh more than its original; where the encoder could not keep it
    /// so (its lowest quality still too many bytes for what the recipe drew), the edit
    /// says so.
    static func heavier(_ what: String, _ bytes: Int64, than original: AssetDescription.Resource) -> [String] {
        guard bytes > original.bytes, original.bytes > 0 else { return [] }
        let percent = Int((Double(bytes) / Double(original.bytes) * 100 - 100).rounded(.up))
        return ["the rendered \(what) is \(percent)% heavier than its original (\(bytes) bytes for \(original.bytes)): the recipe draws more than the encoder's lowest quality fits in the original's bytes"]
    }

    /// The resource for a staged render: an existing one with the same bytes (the same
    /// recipe renders the same bytes), else the file published under derived/renders/,
    /// named by its sha256, and a new row. Returns its id and library path.
    func recordRender(
        _ file: AtomicFile.Temporary, role: ResourceRole, mime: String, ext: String, of asset: Int64, derivedFrom: Int64?,
        published: inout [URL], _ db: any CatalogConnection
    ) throws -> (Int64, String) {
        if let existing = try ResourceRecord.find(asset: asset, role: role, sha256: file.sha256, db) {
            return (existing.id!, existing.path)
        }
        let url = try AtomicFile.publish(file.url, to: layout.render(file.sha256, ext: ext))
        published.append(url)
        var resource = ResourceRecord(
            id: nil, assetId: asset, role: role, path: relative(url), sha256: file.sha256, bytes: file.bytes, mime: mime,
            derivedFrom: derivedFrom, originalName: nil, sourceDir: nil, addedAt: utcNow(), crc32: file.crc32)
        try db.insert(&resource)
        return (resource.id!, resource.path)
    }

    /// Makes the original the asset's current version again; every adjustment and render
    /// stays in the history. Returns false when the original already was current.
    @discardableResult
    public func revert(asset: Int64) throws -> Bool {
        guard try describe([asset]).first != nil else { throw LibraryError.assetNotFound("with id \(asset)") }
        return try catalog.write { db in
            try requireNotTrashed(asset, db)
            guard try AdjustmentRecord.current(of: asset, db) != nil else { return false }
            try AssetVersionRecord.setCurrent(asset: asset, adjustment: nil, db)
            return true
        }
    }

    /// Records camlib's `recipe` as a new adjustment of `asset` (resuming `extending`)
    /// whose renders are the resources `renders`, and makes it the current version; with
    /// `existing`, links the renders to that adjustment instead.
    @discardableResult
    func recordCamlibAdjustment(
        _ recipe: CamlibRecipe, of asset: Int64, extending: Int64?, renders: [Int64], existing: Int64? = nil, _ db: any CatalogConnection
    ) throws -> Int64 {
        if let existing {
            for resource in renders { try AdjustmentRenderRecord.link(resource, to: existing, db) }
            return existing
        }
        var adjustment = AdjustmentRecord(
            id: nil, assetId: asset, formatIdentifier: CamlibAdjustment.formatIdentifier,
            formatVersion: CamlibAdjustment.formatVersion(of: recipe), data: try CamlibAdjustment.data(recipe), extendsId: extending,
            origin: .camlib, sidecarResourceId: nil, createdAt: utcNow())
        try db.insert(&adjustment)
        for resource in renders {
            try AdjustmentRenderRecord.link(resource, to: adjustment.id!, db)
        }
        try AssetVersionRecord.setCurrent(asset: asset, adjustment: adjustment.id!, db)
        return adjustment.id!
    }
}
