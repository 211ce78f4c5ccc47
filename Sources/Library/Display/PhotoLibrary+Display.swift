import Codecs
import Crypto
import Containers
import Filters
import Foundation
import Imaging

extension PhotoLibrary {
    /// Which files the current versions of these assets show (see ``AssetMedia``).
    public func media(of ids: [Int64]) throws -> [Int64: AssetMedia] {
        guard !ids.isEmpty else { return [:] }
        return try catalog.read { db in
            var out: [Int64: AssetMedia] = [:]
            for start in stride(from: 0, to: ids.count, by: 256) {
                let chunk = IDList(Array(ids[start..<min(start + 256, ids.count)]))
                let pending = try JobRecord.pendingThumbnails(assets: chunk, db)
                for r in try ResourceRecord.fetchCurrentShown(assets: chunk, db) {
                    var m = out[r.assetId] ?? AssetMedia()
                    switch r.role {
                    case .renderedPhoto: m.still = r.id
                    case .photo: m.still = m.still ?? r.id
                    case .renderedVideo: m.movie = r.id
                    case .pairedVideo, .video: m.movie = m.movie ?? r.id
                    default: break
                    }
                    m.thumbnailPending = pending.contains(m.still ?? m.movie ?? -1)
                    out[r.assetId] = m
                }
            }
            return out
        }
    }

    /// A file a browser can show, made from the asset's still or movie `resource` (an
    /// original or an edit's render): made once, when first asked for, and kept under
    /// derived/ (so it can always be made again; for a library on read-only storage, in a
    /// cache folder of this user's, `displayLayout`). Only the asset's own stills and
    /// movies are served, whatever the ids asked for.
    public func displayFile(asset: Int64, resource: Int64, kind: DisplayKind) throws -> DisplayFile {
        try displayFile(asset: asset, resource: resource, kind: kind, making: true)!
    }

    /// The file to serve when nothing has to be decoded to have it (an original, import's
    /// thumbnail, a browsers' copy made before); nil when it has to be made, which the
    /// gallery has done in a child process (``displayFile(asset:resource:kind:)`` there).
    public func madeDisplayFile(asset: Int64, resource: Int64, kind: DisplayKind) throws -> DisplayFile? {
        try displayFile(asset: asset, resource: resource, kind: kind, making: false)
    }

    private func displayFile(asset: Int64, resource: Int64, kind: DisplayKind, making: Bool) throws -> DisplayFile? {
        // One read: the file, for a thumbnail the one import made of it, for a movie the
        // codec import read.
        let (found, imported, codec) = try catalog.read { db in
            let source = try ResourceRecord.fetchShowable(asset: asset, resource: resource, db)
            return (
                source, kind == .thumbnail && source != nil ? try ResourceRecord.fetchThumbnail(of: resource, db) : nil,
                kind == .movie && source != nil ? try MetadataRecord.videoCodec(of: resource, db) : nil
            )
        }
        guard let source = found else { throw DisplayError.notFound("asset \(asset) has no photo or movie \(resource)") }
        let path = try file(source.path, of: asset)
        let isMovie = [.pairedVideo, .video, .renderedVideo].contains(source.role)
        // Where made files go (derived/, or the user's cache for a read-only library).
        let store = try displayLayout()
        /// The still, or a movie's first frame, in display orientation.
        func picture(maxSide: Int) throws -> PixelBuffer<UInt8> {
            try isMovie ? DisplayRendering.posterFrame(path: path.path, maxSide: maxSide)
                : DisplayRendering.orientedStill(path: path.path, maxSide: maxSide)
        }
        func made(_ url: URL, _ mime: String, _ what: String, _ make: () throws -> [UInt8]) throws -> DisplayFile? {
            try madeFile(url, mime, what) { try AtomicFile.writeTemporary(try make(), in: store.temporary, readOnly: true) }
        }
        /// `make` writes the file into the store's temporary folder.
        func madeFile(_ url: URL, _ mime: String, _ what: String, _ make: () throws -> AtomicFile.Temporary) throws -> DisplayFile? {
            let file = DisplayFile(url: url, mime: mime, tag: "\(source.sha256)-\(what)")
            if FileManager.default.fileExists(atPath: url.path) { return file }
            guard making else { return nil }
            let staged: AtomicFile.Temporary
            // Decoding a 48 MP still or encoding a movie takes a core and hundreds of MB:
            // as many at once as there are cores, however many requests ask.
            DisplayRendering.workers.wait()
            defer { DisplayRendering.workers.signal() }
            do {
                staged = try make()
            } catch {
                throw DisplayError.cannotMake(kind: kind, asset: asset, file: path.path, reason: MediaAnalyzer.describe(error))
            }
            try AtomicFile.publishIfAbsent(staged.url, to: url)
            return file
        }
        switch kind {
        case .original:
            return DisplayFile(url: path, mime: source.mime, tag: source.sha256)
        case .thumbnail:
            // Import made one of every original; an edit's render gets its own here.
            if let thumb = imported {
                return DisplayFile(url: try file(thumb.path, of: asset), mime: thumb.mime, tag: thumb.sha256)
            }
            return try made(store.thumbnail(of: source.sha256), "image/jpeg", "thumbnail") {
                try JPEGCodec.encode(picture(maxSide: MediaAnalyzer.thumbnailSide), quality: MediaAnalyzer.thumbnailQuality)
            }
        case .preview:
            return try made(store.preview(of: source.sha256), "image/jpeg", "preview") {
                try JPEGCodec.encode(picture(maxSide: Self.previewSide), quality: DisplayRendering.previewQuality)
            }
        case .movie:
            guard isMovie else { throw DisplayError.notFound("file \(resource) of asset \(asset) is not a movie") }
            // H.264 plays in every browser as it is (a QuickTime movie is an ISO base media
            // file: browsers play it as MP4). Otherwise, or when the catalog does not know
            // the codec, FFmpeg reads the file, which a child of the gallery does.
            if codec == "h264" { return DisplayFile(url: path, mime: "video/mp4", tag: source.sha256) }
            guard making else {
                let proxy = store.proxy(of: source.sha256)
                return FileManager.default.fileExists(atPath: proxy.path) ? DisplayFile(url: proxy, mime: "video/mp4", tag: "\(source.sha256)-h264") : nil
            }
            let playable: Bool
            do {
                playable = try DisplayRendering.isBrowserPlayable(path: path.path)
            } catch {
                throw DisplayError.cannotMake(kind: kind, asset: asset, file: path.path, reason: MediaAnalyzer.describe(error))
            }
            // A QuickTime movie is an ISO base media file: browsers play it as MP4.
            if playable { return DisplayFile(url: path, mime: "video/mp4", tag: source.sha256) }
            return try madeFile(store.proxy(of: source.sha256), "video/mp4", "h264") {
                try DisplayRendering.h264Proxy(path: path.path, scratch: store.temporary)
            }
        }
    }

    /// The PNG of an auxiliary image (depth, a matte) of the asset's still `resource`, in
    /// the still's orientation: made the first time it is asked for (``auxiliaryPNG(_:)``),
    /// or as `aux attach` made it. Throws `DisplayError.notFound` when the still has no
    /// such image, an ``AuxiliaryError`` when it cannot be decoded.
    public func auxiliaryFile(asset: Int64, resource: Int64, type: AuxiliaryImageType) throws -> DisplayFile {
        try auxiliaryFile(asset: asset, resource: resource, type: type, making: true)!
    }

    /// The PNG when it is made already; nil when making it needs a decode (which the
    /// gallery has done in a child process).
    public func madeAuxiliaryFile(asset: Int64, resource: Int64, type: AuxiliaryImageType) throws -> DisplayFile? {
        try auxiliaryFile(asset: asset, resource: resource, type: type, making: false)
    }

    private func auxiliaryFile(asset: Int64, resource: Int64, type: AuxiliaryImageType, making: Bool) throws -> DisplayFile? {
        let found = try catalog.read { db in try AuxImageRecord.fetchExtracted(asset: asset, resource: resource, type: type, db) }
        guard let found, found.path != nil else {
            throw DisplayError.notFound("asset \(asset) has no \(type.rawValue) image in file \(resource)")
        }
        let tag = "\(asset)-\(resource)-\(found.source)"
        if let made = madePNG(found) { return DisplayFile(url: made, mime: "image/png", tag: tag) }
        guard making else { return nil }
        // Made the first time it is shown: a decode, as many at once as there are cores.
        DisplayRendering.workers.wait()
        defer { DisplayRendering.workers.signal() }
        return DisplayFile(url: try auxiliaryPNG(found), mime: "image/png", tag: tag)
    }

    /// Where the files browsers are given go: the library's own derived/, or, for a
    /// library on read-only storage, this user's cache folder ($XDG_CACHE_HOME, else
    /// ~/.cache: camlib/display/ID, one per library), as they can always be made again.
    func displayLayout() throws -> LibraryLayout {
        guard isReadOnly else { return layout }
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        let name = SHA256.hash(data: Data(root.standardizedFileURL.path.utf8)).hexString.prefix(16)
        let cache = LibraryLayout(root: base.appendingPathComponent("camlib/display/\(name)"))
        try FileManager.default.createDirectory(at: cache.temporary, withIntermediateDirectories: true)
        return cache
    }

    /// Longest side of a preview, in pixels: a large screen's view, not the whole original.
    public static let previewSide = 2048
}

extension PhotoLibrary {
    /// The file an edit preview is made from: a photo's still, or a video's (its poster
    /// frame); edits start from the original.
    public func editPreviewSource(asset: Int64) throws -> Int64 {
        let source = try catalog.read { db in
            try ResourceRecord.fetchOwnStillOrMovie(asset: asset, db)
        }
        guard let id = source?.id else { throw DisplayError.notFound("asset \(asset) has no photo or video to edit") }
        return id
    }

    /// A quick look at what an edit of `steps` would make of the asset's photo, before it
    /// is rendered: the recipe applied to its preview, `maxSide` pixels at most, as JPEG.
    /// Edits start from the original, and so does this. (The gallery keeps an
    /// ``EditPreviewer``, which keeps what it decoded for the next change.)
    /// A depth step reads the photo's depth; without one, the error names the asset and file.
    public func editPreview(asset: Int64, steps: [FilterStep], maxSide: Int = 1024) throws -> [UInt8] {
        try EditPreviewer(library: self, maxSide: maxSide, capacity: 1).preview(asset: asset, steps: steps)
    }

    /// The depth of the asset's photo, as an edit reads it (``DepthField/carried(by:)``).
    func editDepth(asset: Int64) throws -> DepthField {
        guard let still = try describe([asset]).first?.resources.first(where: { $0.role == .photo }) else {
            throw DisplayError.notFound("asset \(asset) has no photo, so it has no depth")
        }
        return try EditError.naming(asset: asset, still) {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: still.path), options: .alwaysMapped))
            return try DepthField.required(by: bytes)
        }
    }

    /// The picture an edit preview starts from: the asset's preview, upright, `maxSide`
    /// pixels at most. `auto` measures it too, so a preview shows what the edit stores.
    func editPreviewPicture(asset: Int64, maxSide: Int = 1024) throws -> PixelBuffer<UInt8> {
        let preview = try displayFile(asset: asset, resource: try editPreviewSource(asset: asset), kind: .preview)
        let decoded = try JPEGCodec.decode([UInt8](Data(contentsOf: preview.url)), atLeast: maxSide)
        return try PixelScaler.scaledToFit(decoded.pixels, maxSide: maxSide)
    }
}
