import Foundation

/// A file made for browsers (a preview, an H.264 proxy, an edit's thumbnail), named by
/// the sha256 of the file it shows; nothing records its own hash.
struct CacheFile: Sendable {
    /// Relative to the library folder.
    var path: String
    var url: URL
    var kind: DisplayKind
    /// The sha256 of the file it was made from.
    var source: String
}

/// A browsers' copy that is cut short or is not the kind of file its name says: the
/// gallery would serve it as it is, so `repair` makes it again.
struct DamagedCache: Sendable {
    var file: CacheFile
    var reason: String
}

extension PhotoLibrary {
    /// The browsers' copies among `caches` (``walkFiles()``) whose structure is broken: a
    /// JPEG that does not start and end as one, a movie whose boxes do not add up or that
    /// has no `moov` or `mdat`. Structure only, read from each file's ends and box
    /// headers: a bit flipped inside the picture is not found.
    func damaged(_ caches: [CacheFile]) -> [DamagedCache] {
        caches.compactMap { file in
            Self.structuralProblem(file.url, movie: file.kind == .movie).map { DamagedCache(file: file, reason: $0) }
        }
    }

    /// What is wrong with a made JPEG or movie's structure; nil when nothing is.
    static func structuralProblem(_ url: URL, movie: Bool) -> String? {
        if movie {
            guard let boxes = FileReading.topLevelBoxes(of: url.path) else { return "its boxes do not add up to the file (cut short?)" }
            let types = Set(boxes.map(\.type))
            return types.contains("moov") && types.contains("mdat") ? nil : "it has no moov or no mdat box"
        }
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "it cannot be opened: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 4 else { return "it is not a JPEG: too short" }
        var head = [UInt8](repeating: 0, count: 2), tail = [UInt8](repeating: 0, count: 2)
        guard pread(fd, &head, 2, 0) == 2, pread(fd, &tail, 2, off_t(info.st_size - 2)) == 2 else { return "it cannot be read" }
        guard head == [0xFF, 0xD8] else { return "it does not start as a JPEG does" }
        return tail == [0xFF, 0xD9] ? nil : "it does not end as a JPEG does (cut short?)"
    }

    /// What repair does with a damaged browsers' copy: deleted, it is made again by a
    /// `preview` or `proxy` job (the gallery's own ``displayFile(asset:resource:kind:)``,
    /// from a file holding its source's bytes), or, when no file has those bytes, only
    /// deleted.
    enum CacheRemake {
        case done(RepairReport.Action)
        case job(NewJob, RepairReport.Action)
    }

    func prepareRemake(_ damaged: DamagedCache) throws -> CacheRemake {
        let cache = damaged.file
        let source = try catalog.read { db in
            try ResourceRecord.fetchShowable(sha256: cache.source, db)
        }
        guard unlink(cache.url.path) == 0 || errno == ENOENT else {
            return .done(
                .init(kind: .notRepaired, asset: source?.assetId, path: cache.url.path,
                      detail: "\(cache.url.path): \(damaged.reason); deleting it failed: \(String(cString: strerror(errno)))"))
        }
        guard let source, let id = source.id else {
            return .done(
                .init(kind: .removed, asset: nil, path: cache.url.path,
                      detail: "\(cache.url.path): \(damaged.reason); no file of the library has the bytes it was made from, so it was deleted"))
        }
        let what = "asset \(source.assetId): \(cache.path) (\(damaged.reason))"
        switch cache.kind {
        case .preview, .movie:
            return .job(
                .derived(cache.kind == .preview ? .preview : .proxy, asset: source.assetId, resource: id),
                .init(kind: .queued, asset: source.assetId, path: cache.url.path, detail: "\(what) was deleted, to be made again from \(source.path)"))
        case .thumbnail, .original:
            // An edit's small thumbnail: made at once.
            do {
                let made = try displayFile(asset: source.assetId, resource: id, kind: cache.kind)
                return .done(.init(kind: .rebuilt, asset: source.assetId, path: made.url.path, detail: "\(what) made again from \(source.path)"))
            } catch {
                return .done(
                    .init(kind: .notRepaired, asset: source.assetId, path: cache.url.path,
                          detail: "\(what) was deleted; making it again failed: \(error); the gallery tries again when it is shown"))
            }
        }
    }
}
