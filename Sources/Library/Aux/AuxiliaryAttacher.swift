import Codecs
import Containers
import Foundation
import GRDB
import Imaging

/// `camlib aux attach`: a depth map or matte (a PNG) added to a HEIC as an auxiliary item,
/// the photo's coded data untouched (see ``HEIFAuxiliaryWriter``). Every result is read
/// back with libheif before it is kept: the new item must be there with its URN, and a
/// lossless attach must give back exactly the samples it was given.
public enum AuxiliaryAttacher {
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// The attached image as read back from the new file.
        public var attached: FoundAuxiliaryImage
        /// Largest difference between the given and the read-back samples (0 when lossless).
        public var maxError: Int
        /// The samples as given (one channel).
        public var given: ImageSamples
        /// Every auxiliary image of the new file, read back (decoded).
        public var found: [FoundAuxiliaryImage]
    }

    /// `depthRange`: for a depth map, the distances in metres its smallest (0) and largest
    /// sample values stand for, written as the item's ISO 23008-2 depth representation
    /// (uniform Z) so readers can turn samples into metres. A disparity map is marked as
    /// uniform disparity, which is how readers tell it from depth under the same URN.
    public static func attach(
        toFile path: String, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        depthRange: ClosedRange<Double>? = nil
    ) throws -> Result {
        guard let urn = type.urn else {
            throw MediaAnalyzer.Failure(reason: "choose what the image is with --type (depth, disparity, portrait-matte, …); `other` has no URN")
        }
        if let depthRange {
            guard type == .depth else { throw MediaAnalyzer.Failure(reason: "a distance range (--z-near, --z-far) belongs to a depth map, not a \(type.rawValue)") }
            guard depthRange.lowerBound > 0, depthRange.lowerBound < depthRange.upperBound, depthRange.upperBound.isFinite else {
                throw MediaAnalyzer.Failure(reason: "the distance range must run from a near distance above 0 to a farther one, in metres")
            }
        }
        let representation: DepthRepresentation? =
            switch type {
            case .disparity: DepthRepresentation(kind: .uniformDisparity, zNear: nil, zFar: nil)
            case .depth: depthRange.map { DepthRepresentation(kind: .uniformZ, zNear: $0.lowerBound, zFar: $0.upperBound) }
            default: nil
            }
        let header = try FileReading.prefix(of: path, count: 64)
        guard MediaFormat.sniff(header) == .heif else {
            throw MediaAnalyzer.Failure(reason: "\(path): auxiliary images can be attached to HEIC files only")
        }
        let samples = try readGray(image)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let bytes = try HEIFAuxiliaryWriter.attach(
            to: original, samples: samples, urn: urn, auxSubtype: representation?.auxSubtype ?? [], options: options)

        // Read it back before anyone keeps it.
        let extras = try AuxiliaryExtractor.scan(bytes: bytes, decode: true)
        guard let attached = extras.auxiliaryImages.last(where: { $0.urn == urn }), let back = attached.samples, attached.type == type else {
            throw MediaAnalyzer.Failure(reason: "internal error: the written file does not read back with its new \(type.rawValue) item (\(urn))")
        }
        let maxError = difference(samples, back)
        if options.lossless && maxError != 0 {
            throw MediaAnalyzer.Failure(reason: "internal error: the lossless item reads back with errors up to \(maxError)")
        }
        let primaryBefore = try HEIFFile(bytes: original).primaryImage()
        let primaryAfter = try HEIFFile(bytes: bytes).primaryImage()
        guard primaryBefore.width == primaryAfter.width, primaryBefore.height == primaryAfter.height else {
            throw MediaAnalyzer.Failure(reason: "internal error: the photo changed size in the written file")
        }
        return Result(bytes: bytes, attached: attached, maxError: maxError, given: samples, found: extras.auxiliaryImages)
    }

    /// A PNG as one gray channel: gray PNGs as they are, RGB ones whose channels are equal
    /// (what many tools write for gray) reduced to one.
    static func readGray(_ path: String) throws -> ImageSamples {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let samples: ImageSamples
        do {
            samples = try PNGCodec.decodeSamples(data).samples
        } catch let e as PNGError {
            throw MediaAnalyzer.Failure(reason: "\(path): cannot read it as PNG: \(e.message)")
        }
        if samples.channels == 1 { return samples }
        func gray<C: PixelComponent>(_ p: PixelBuffer<C>) throws -> PixelBuffer<C> {
            var out = PixelBuffer<C>(width: p.width, height: p.height, channels: 1)
            for i in 0..<(p.width * p.height) {
                let r = p.components[i * 3], g = p.components[i * 3 + 1], b = p.components[i * 3 + 2]
                guard r == g && g == b else {
                    throw MediaAnalyzer.Failure(reason: "\(path): a colour image; an auxiliary image is gray (one channel)")
                }
                out.components[i] = r
            }
            return out
        }
        switch samples {
        case .eight(let p): return .eight(try gray(p))
        case .sixteen(let p, let bits): return .sixteen(try gray(p), significantBits: bits)
        }
    }

    static func difference(_ a: ImageSamples, _ b: ImageSamples) -> Int {
        switch (a, b) {
        case (.eight(let x), .eight(let y)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        case (.sixteen(let x, _), .sixteen(let y, _)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        default:
            return Int.max
        }
    }
}

extension AuxiliaryAttacher {
    /// Writes the result for a file outside the library.
    public static func write(_ result: Result, to destination: URL, overwrite: Bool) throws {
        try AtomicFile.write(result.bytes, to: destination, overwrite: overwrite)
    }
}

extension PhotoLibrary {
    /// The absolute path of the current version's render in `role`; nil when the original
    /// is current or the current adjustment rendered no such file.
    func currentRender(of asset: Int64, role: ResourceRole) throws -> String? {
        try catalog.pool.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT r.path FROM resource r
                    JOIN adjustment_render ar ON ar.resource_id = r.id
                    JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id AND v.asset_id = r.asset_id
                    WHERE r.asset_id = ? AND r.role = ?
                    ORDER BY r.id DESC LIMIT 1
                    """, arguments: [asset, role])
        }.map { absolute($0).path }
    }

    /// Attaches an auxiliary image to a library asset's current version, as a new
    /// adjustment (camlib's recipe with the image in it) that becomes current: the
    /// current still (the original, or an edit's or earlier attach's render) gets the
    /// new item, its photo's coded data copied bit for bit, and the new file is the
    /// adjustment's render. The original stays as it is; `camlib revert` goes back to it.
    public func attachAuxiliaryImage(
        to asset: Int64, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        depthRange: ClosedRange<Double>? = nil
    ) throws -> (path: String, result: AuxiliaryAttacher.Result) {
        guard let description = try describe([asset]).first, let original = description.resources.first(where: { $0.role == .photo })
        else { throw LibraryError.assetNotFound("\(asset) with a still") }
        let current = try catalog.pool.read { db in try currentAdjustment(of: asset, db) }
        var recipe = CamlibRecipe(steps: [])
        if let current {
            guard let currentRecipe = CamlibAdjustment.recipe(current) else {
                throw MediaAnalyzer.Failure(
                    reason: "the current version of asset \(asset) is an edit in \(current["format_identifier"] as String), which camlib cannot extend; `camlib revert \(asset)` first to attach to the original")
            }
            recipe = currentRecipe
        }
        let base = try currentRender(of: asset, role: .renderedPhoto) ?? original.path
        let result = try AuxiliaryAttacher.attach(toFile: base, type: type, from: image, options: options, depthRange: depthRange)
        let given = try AuxiliaryPNG.encode(result.given)
        recipe.attachments.append(
            .init(
                type: type, png: Data(given).base64EncodedString(), lossless: options.lossless, quality: options.quality,
                zNear: depthRange?.lowerBound, zFar: depthRange?.upperBound))
        let staged = try AtomicFile.writeTemporary(result.bytes, in: temporary, readOnly: true)
        defer { unlink(staged.url.path) }
        let attached = try stageAttachedImages(recipe.attachments.map(\.type), from: result.found)
        defer { for a in attached { unlink(a.png.url.path) } }
        // Attaching touches the still only: a Live Photo's current movie render stays.
        let movieRender = try currentRender(of: asset, role: .renderedVideo)
        var published: [URL] = []
        do {
            return try catalog.pool.write { db in
                let stillID = try Int64.fetchOne(
                    db, sql: "SELECT id FROM resource WHERE asset_id = ? AND role = 'photo'", arguments: [asset])
                let (render, renderPath) = try recordRender(
                    staged, role: .renderedPhoto, mime: MediaFormat.heif.mimeType, ext: "heic", of: asset, derivedFrom: stillID,
                    published: &published, db)
                let movieID = try movieRender.flatMap {
                    try Int64.fetchOne(
                        db, sql: "SELECT id FROM resource WHERE asset_id = ? AND path = ?", arguments: [asset, relative(URL(fileURLWithPath: $0))])
                }
                try recordAttachedImages(attached, asset: asset, still: render, published: &published, db)
                try recordCamlibAdjustment(recipe, of: asset, extending: current?["id"], renders: [render] + (movieID.map { [$0] } ?? []), db)
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
        guard let current = try catalog.pool.read({ db in try currentAdjustment(of: asset, db) }),
            let recipe = CamlibAdjustment.recipe(current), !recipe.attachments.isEmpty,
            let still = try currentRender(of: asset, role: .renderedPhoto)
        else { return }
        let staged = try stageAttachedImages(recipe.attachments.map(\.type), inStill: still)
        defer { for a in staged { unlink(a.png.url.path) } }
        var published: [URL] = []
        do {
            try catalog.pool.write { db in
                guard let id = try Int64.fetchOne(
                    db, sql: "SELECT id FROM resource WHERE asset_id = ? AND path = ?", arguments: [asset, relative(URL(fileURLWithPath: still))])
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

    /// Reads the images of `types` back from a rendered HEIC and writes each as a PNG to tmp/.
    func stageAttachedImages(_ types: [AuxiliaryImageType], inStill path: String) throws -> [StagedAttachment] {
        guard !types.isEmpty else { return [] }
        return try stageAttachedImages(types, from: try AuxiliaryExtractor.scan(path: path, decode: true).auxiliaryImages)
    }

    /// The images of `types` among a still's decoded aux images (the last item of each
    /// type: an attach adds after what the still had), each written as a PNG to tmp/.
    func stageAttachedImages(_ types: [AuxiliaryImageType], from found: [FoundAuxiliaryImage]) throws -> [StagedAttachment] {
        var out: [StagedAttachment] = []
        do {
            for type in types {
                guard let image = found.last(where: { $0.type == type }), let samples = image.samples else {
                    throw MediaAnalyzer.Failure(reason: "internal error: the rendered still does not hold its attached \(type.rawValue) image")
                }
                out.append(StagedAttachment(image: image, png: try AtomicFile.writeTemporary(try AuxiliaryPNG.encode(samples), in: temporary)))
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
    func recordAttachedImages(_ staged: [StagedAttachment], asset: Int64, still: Int64, published: inout [URL], _ db: Database) throws {
        guard !staged.isEmpty, let sha = try String.fetchOne(db, sql: "SELECT sha256 FROM resource WHERE id = ?", arguments: [still])
        else { return }
        for a in staged {
            let i = a.image
            let listed = try Bool.fetchOne(db, sql: "SELECT 1 FROM aux_image WHERE resource_id = ? AND source = ?", arguments: [still, i.source])
            if listed == true { continue }
            let folder = derived.appendingPathComponent("aux/\(sha.prefix(2))/\(sha)")
            let url = try AtomicFile.publish(a.png.url, to: folder.appendingPathComponent("\(i.type.rawValue).png"))
            published.append(url)
            var row = AuxImageRecord(
                id: nil, assetId: asset, resourceId: still, type: i.type, urn: i.urn, source: i.source, width: i.width, height: i.height,
                bitDepth: i.bitDepth, channels: i.channels, path: relative(url), sha256: a.png.sha256, bytes: a.png.bytes,
                encoding: i.encoding.json, problem: nil, addedAt: utcNow())
            try row.insert(db)
        }
    }
}
