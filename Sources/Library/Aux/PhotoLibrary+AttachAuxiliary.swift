import Codecs
import Containers
import Foundation

extension PhotoLibrary {
    /// The absolute path of the current version's render in `role`; nil when the original
    /// is current or the current adjustment rendered no such file.
    func currentRender(of asset: Int64, role: ResourceRole) throws -> String? {
        try catalog.read { db in try AdjustmentRenderRecord.currentRender(of: asset, role: role, db) }.map { try file($0.path, of: asset).path }
    }

    /// Attaches an auxiliary image to a library asset's current version, as a new
    /// adjustment (camlib's recipe with the image in it) that becomes current: the
    /// current still (the original, or an edit's or earlier attach's render) gets the
    /// new image, its photo's coded data copied bit for bit, and the new file (a HEIC
    /// or a JPEG, as the still is) is the adjustment's render. The original stays as it
    /// is; `camlib revert` goes back to it. Errors are ``AuxiliaryError``s naming the
    /// asset and its file, or ``FileAccessError``s naming the PNG.
    public func attachAuxiliaryImage(
        to asset: Int64, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        depthRange: ClosedRange<Double>? = nil
    ) throws -> (path: String, result: AuxiliaryAttacher.Result) {
        guard let description = try describe([asset]).first else { throw LibraryError.assetNotFound("\(asset)") }
        guard let original = description.resources.first(where: { $0.role == .photo }) else {
            throw AuxiliaryError("it has no still to attach an image to (a video)", asset: asset)
        }
        let name = original.originalName ?? URL(fileURLWithPath: original.path).lastPathComponent
        return try AuxiliaryError.naming(asset: asset, file: name) {
            try attachAuxiliaryImage(
                to: description, original: original, name: name, type: type, from: image, options: options, depthRange: depthRange)
        }
    }

    private func attachAuxiliaryImage(
        to description: AssetDescription, original: AssetDescription.Resource, name: String, type: AuxiliaryImageType, from image: String,
        options: HEIFAuxiliaryWriter.Options, depthRange: ClosedRange<Double>?
    ) throws -> (path: String, result: AuxiliaryAttacher.Result) {
        let asset = description.id
        let current = try catalog.read { db in
            try requireNotTrashed(asset, db)
            return try AdjustmentRecord.current(of: asset, db)
        }
        var recipe = CamlibRecipe(steps: [])
        if let current {
            guard let currentRecipe = CamlibAdjustment.recipe(current) else {
                throw AuxiliaryError(
                    "its current version is an edit in \(current.formatIdentifier), which camlib cannot extend; `camlib revert \(asset)` first to attach to the original")
            }
            recipe = currentRecipe
        }
        let base = try currentRender(of: asset, role: .renderedPhoto) ?? original.path
        var result = try AuxiliaryAttacher.attach(toFile: base, type: type, from: image, options: options, depthRange: depthRange)
        let given = try AuxiliaryPNG.encode(result.given, about: nil)
        recipe.attachments.append(
            .init(
                type: type, png: Data(given).base64EncodedString(), lossless: options.lossless, quality: options.quality,
                zNear: depthRange?.lowerBound, zFar: depthRange?.upperBound))
        // A Live Photo's current movie render (an edit's) shares the current still's
        // identifier already, and stays. With the original current, the new still is a new
        // version of the pair: it gets an identifier of its own, and so does a copy of the
        // original movie (its key rewritten in place; its frames untouched), as an edit's
        // pair does, so no three files share one identifier.
        let movieRender = try currentRender(of: asset, role: .renderedVideo)
        var movieCopy: (file: AtomicFile.Temporary, original: AssetDescription.Resource)?
        defer { if let movieCopy { unlink(movieCopy.file.url.path) } }
        if movieRender == nil, let movie = description.resources.first(where: { $0.role == .pairedVideo }),
            let (old, new) = try RenderIdentifier.pair(for: description, recipe: recipe)
        {
            RenderIdentifier.replace(old, with: new, in: &result.bytes)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: movie.path)))
            guard let moov = ISOBox.sequence(in: bytes, from: 0, limit: bytes.count).first(where: { $0.type == "moov" }),
                RenderIdentifier.replace(old, with: new, in: &bytes, within: moov.offset..<moov.end) > 0
            else {
                throw AuxiliaryError("the Live Photo's movie does not carry its content identifier where camlib can give it a new one")
            }
            movieCopy = (try AtomicFile.writeTemporary(bytes, in: temporary, readOnly: true), movie)
        }
        let staged = try AtomicFile.writeTemporary(result.bytes, in: temporary, readOnly: true)
        defer { unlink(staged.url.path) }
        let attached = try stageAttachedImages(recipe.attachments.map(\.type), from: result.found, of: name)
        defer { for a in attached { unlink(a.png.url.path) } }
        var published: [URL] = []
        do {
            return try catalog.write { db in
                let stillID = try ResourceRecord.firstID(asset: asset, role: .photo, db)
                let (render, renderPath) = try recordRender(
                    staged, role: .renderedPhoto, mime: result.format.mimeType, ext: result.format.fileExtension, of: asset,
                    derivedFrom: stillID, published: &published, db)
                var movieID = try movieRender.flatMap { try ResourceRecord.id(asset: asset, path: relative(URL(fileURLWithPath: $0)), db) }
                if let (file, movie) = movieCopy {
                    let originalID = try ResourceRecord.id(asset: asset, path: relative(URL(fileURLWithPath: movie.path)), db)
                    let ext = URL(fileURLWithPath: movie.originalName ?? movie.path).pathExtension.lowercased()
                    movieID = try recordRender(
                        file, role: .renderedVideo, mime: movie.mime, ext: ext.isEmpty ? "mov" : ext, of: asset, derivedFrom: originalID,
                        published: &published, db
                    ).0
                }
                try recordAttachedImages(attached, asset: asset, still: render, published: &published, db)
                try recordCamlibAdjustment(recipe, of: asset, extending: current?.id, renders: [render] + (movieID.map { [$0] } ?? []), db)
                return (absolute(renderPath).path, result)
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }

    /// Lists the images the current version attached as aux images of its render, when
    /// they are not listed yet: after import restored an exported history.
    func listAttachedImages(of asset: Int64) throws {
        guard let current = try catalog.read({ db in try AdjustmentRecord.current(of: asset, db) }),
            let recipe = CamlibAdjustment.recipe(current), !recipe.attachments.isEmpty,
            let still = try currentRender(of: asset, role: .renderedPhoto)
        else { return }
        let original = try describe([asset]).first?.resources.first { $0.role == .photo }
        let name = original.map { $0.originalName ?? URL(fileURLWithPath: $0.path).lastPathComponent } ?? URL(fileURLWithPath: still).lastPathComponent
        let staged = try stageAttachedImages(recipe.attachments.map(\.type), inStill: still, of: name)
        defer { for a in staged { unlink(a.png.url.path) } }
        var published: [URL] = []
        do {
            try catalog.write { db in
                guard let id = try ResourceRecord.id(asset: asset, path: relative(URL(fileURLWithPath: still)), db)
                else { return }
                try recordAttachedImages(staged, asset: asset, still: id, published: &published, db)
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }

    /// An attached image as a rendered still holds it, read back, and its PNG in tmp/.
    struct StagedAttachment {
        var image: FoundAuxiliaryImage
        var png: AtomicFile.Temporary
    }

    /// Reads the images of `types` back from a rendered HEIC (an edit of the still named
    /// `file`) and writes each as a PNG to tmp/.
    func stageAttachedImages(_ types: [AuxiliaryImageType], inStill path: String, of file: String) throws -> [StagedAttachment] {
        guard !types.isEmpty else { return [] }
        return try stageAttachedImages(types, from: try AuxiliaryExtractor.scan(path: path, decode: true).auxiliaryImages, of: file)
    }

    /// The images of `types` among a still's decoded aux images (the last item of each
    /// type: an attach adds after what the still had), each written as a PNG to tmp/.
    func stageAttachedImages(_ types: [AuxiliaryImageType], from found: [FoundAuxiliaryImage], of file: String) throws -> [StagedAttachment] {
        var out: [StagedAttachment] = []
        do {
            for type in types {
                guard let image = found.last(where: { $0.type == type }), let samples = image.samples else {
                    throw AuxiliaryError("internal error: the rendered still does not hold its attached \(type.rawValue) image")
                }
                out.append(StagedAttachment(image: image, png: try AtomicFile.writeTemporary(try AuxiliaryPNG.encode(samples, of: image, in: file), in: temporary)))
            }
        } catch {
            for a in out { unlink(a.png.url.path) }
            throw error
        }
        return out
    }

    /// Lists staged attached images as aux images of the render `still` (a resource id),
    /// their PNGs under derived/aux/<render sha256>/. A render an identical recipe made
    /// before already lists them.
    func recordAttachedImages(_ staged: [StagedAttachment], asset: Int64, still: Int64, published: inout [URL], _ db: any CatalogConnection) throws {
        guard !staged.isEmpty, let sha = try ResourceRecord.find(still, db)?.sha256 else { return }
        for a in staged {
            let i = a.image
            if try AuxImageRecord.isListed(resource: still, source: i.source, db) { continue }
            let url = try AtomicFile.publish(
                a.png.url, to: layout.auxiliaryImages(of: sha).appendingPathComponent("\(i.type.rawValue).png"))
            published.append(url)
            var row = AuxImageRecord(
                id: nil, assetId: asset, resourceId: still, type: i.type, urn: i.urn, source: i.source, width: i.width, height: i.height,
                bitDepth: i.bitDepth, channels: i.channels, path: relative(url), sha256: a.png.sha256, bytes: a.png.bytes,
                encoding: i.encoding.json, problem: nil, addedAt: utcNow())
            try db.insert(&row)
        }
    }
}
