import Foundation
import Synchronization

/// What `camlib verify` found.
public struct VerifyReport: Codable, Sendable {
    public struct Problem: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// A file the catalog names is not there.
            case missing
            /// Its bytes are not the ones recorded (sha256, or with --quick its size).
            case damaged
            /// With --quick: written after it entered the library (originals never are).
            case modified
            /// A catalog path that points outside the library folder: never followed.
            case outside
            /// A file in the library folder that no catalog row names.
            case unknown
            /// A file an emptying of the trash listed for deletion and did not delete yet.
            case pendingRemoval
            /// The current version is a camlib edit with no render of the still or movie:
            /// the asset would show, export and play the original instead.
            case unrendered
        }

        public var kind: Kind
        /// The asset the file belongs to (nil for a file no row names).
        public var asset: Int64?
        /// `photo`, `pairedVideo`, …, `thumbnail`, or `aux:TYPE`.
        public var role: String?
        /// Absolute path.
        public var path: String
        /// Whether it is an original (nothing but a backup brings it back); otherwise camlib
        /// made it from one.
        public var original: Bool
        public var detail: String
    }

    /// Whether sizes and times were compared instead of sha256s.
    public var quick: Bool
    /// Files the catalog names, checked.
    public var files = 0
    /// Bytes read to hash them.
    public var bytesRead: Int64 = 0
    public var problems: [Problem] = []

    /// Nothing is missing, damaged, outside, unknown or unrendered.
    public var sound: Bool { problems.isEmpty }
}

extension PhotoLibrary {
    /// Checks the library folder against the catalog: every file a row names exists and
    /// has the bytes recorded for it (`quick`: its size, and no change after it was
    /// added), every path lies inside the library, and every file under `originals/` and
    /// `derived/` is named by a row (or, for previews, proxies and thumbnails, made from
    /// bytes a file of the library has). The catalog is read a page at a time, so memory
    /// stays flat at any size; files are hashed on every core. `progress` hears files
    /// checked of files to check. Changes nothing.
    public func verify(quick: Bool, progress: (Int, Int) -> Void = { _, _ in }) throws -> VerifyReport {
        var report = VerifyReport(quick: quick)
        let total = try catalog.read { db in try CatalogFile.count(db) }
        try forEachCatalogFilePage { page in
            for (problem, bytes) in check(page, quick: quick) {
                report.bytesRead += bytes
                if let problem { report.problems.append(problem) }
            }
            report.files += page.count
            progress(report.files, total)
        }
        report.problems += try catalog.read { db in try AdjustmentRecord.currentWithoutRender(db) }.map { missing in
            let what = missing.role == .renderedPhoto ? "still" : "movie"
            return .init(
                kind: .unrendered, asset: missing.asset, role: missing.role.rawValue, path: layout.derived.appendingPathComponent("renders").path, original: false,
                detail: "asset \(missing.asset): its current edit (adjustment \(missing.adjustment)) has no rendered \(what), so the original shows in its place; `camlib repair` renders it again")
        }
        let files = try walkFiles()
        report.problems += unknownFiles(files.strays)
        report.problems += damaged(files.caches).map { cache in
            .init(kind: .damaged, asset: nil, role: cache.file.kind.rawValue, path: cache.file.url.path, original: false,
                  detail: "\(cache.file.url.path): a \(cache.file.kind.rawValue) made for browsers: \(cache.reason); `camlib repair` makes it again")
        }
        return report
    }

    /// Every file the catalog names (resources, then aux images' PNGs), 512 at a time,
    /// each page in a read of its own: flat memory, and no long read transaction.
    func forEachCatalogFilePage(_ body: ([CatalogFile]) throws -> Void) throws {
        for source in [CatalogFile.Source.resource, .auxImage] {
            var after: Int64 = 0
            while true {
                let page = try catalog.read { db in try CatalogFile.page(source, after: after, limit: 512, db) }
                guard let last = page.last else { break }
                after = last.id
                try body(page)
            }
        }
    }

    /// Each file's problem, if any, and the bytes read to find out; in `files`' order.
    func check(_ files: [CatalogFile], quick: Bool) -> [(VerifyReport.Problem?, Int64)] {
        let results = Mutex<[Int: (VerifyReport.Problem?, Int64)]>([:])
        let layout = self.layout
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            let result = Self.check(files[i], layout: layout, quick: quick)
            results.withLock { $0[i] = result }
        }
        return results.withLock { r in files.indices.map { r[$0]! } }
    }

    static func check(_ file: CatalogFile, layout: LibraryLayout, quick: Bool) -> (VerifyReport.Problem?, Int64) {
        let name = file.originalName.map { " (\($0))" } ?? ""
        func problem(_ kind: VerifyReport.Problem.Kind, _ path: String, _ detail: String) -> VerifyReport.Problem {
            let what = "asset \(file.assetId)\(name), \(file.role)"
            return VerifyReport.Problem(kind: kind, asset: file.assetId, role: file.role, path: path, original: file.isOriginal, detail: "\(what): \(detail)")
        }
        guard let url = layout.confined(file.path) else {
            return (problem(.outside, file.path, "the catalog names \(file.path), which is not inside the library; camlib does not follow it"), 0)
        }
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            let cause = errno == ENOENT ? "missing" : String(cString: strerror(errno))
            return (problem(.missing, url.path, "\(url.path) is \(cause)"), 0)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return (problem(.damaged, url.path, "\(url.path) is not a regular file"), 0) }
        let size = Int64(info.st_size)
        if size != file.bytes {
            return (problem(.damaged, url.path, "\(url.path) has \(size) bytes; \(file.bytes) were recorded"), 0)
        }
        if quick {
            let added = Self.date(file.addedAt)
            let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
            // Written before its row (copied, then recorded): later means changed since
            // (a second allowed for file systems that keep coarser times).
            if let added, modified.timeIntervalSince(added) > 1 {
                return (problem(.modified, url.path, "\(url.path) was modified at \(catalogTime(modified)), after it entered the library at \(file.addedAt)"), 0)
            }
            return (nil, 0)
        }
        do {
            let sha = try FileReading.sha256(of: url.path)
            guard sha == file.sha256 else {
                return (problem(.damaged, url.path, "\(url.path) does not hold the bytes recorded (sha256 \(sha.prefix(12))…, recorded \(file.sha256.prefix(12))…)"), size)
            }
        } catch {
            return (problem(.damaged, url.path, "\(error)"), 0)
        }
        return (nil, size)
    }

    /// Files under `originals/` and `derived/` that no row names, and those waiting to be
    /// removed.
    private func unknownFiles(_ strays: [StrayFile]) -> [VerifyReport.Problem] {
        strays.map { stray in
            stray.queued
                ? .init(kind: .pendingRemoval, asset: nil, role: nil, path: stray.url.path, original: false,
                        detail: "\(stray.url.path): listed for deletion by an emptying of the trash that did not finish; `camlib trash --empty` or `camlib repair` finishes it")
                : .init(kind: .unknown, asset: nil, role: nil, path: stray.url.path, original: stray.path.hasPrefix("originals/"),
                        detail: "\(stray.url.path): no catalog row names it")
        }
    }

    /// A file of the library folder that no catalog row names.
    struct StrayFile {
        /// Relative to the library folder.
        var path: String
        var url: URL
        /// Listed in `file_removal`: an emptying of the trash that did not finish.
        var queued: Bool
    }

    /// The files under `originals/` and `derived/` that no row names, in path order:
    /// `strays`, neither a resource nor an aux image's PNG nor made from bytes a file of
    /// the library has; and `caches`, the browsers' copies (previews, proxies, edits'
    /// thumbnails) made from such bytes. The folders are walked once and looked up 512
    /// files at a time.
    func walkFiles() throws -> (strays: [StrayFile], caches: [CacheFile]) {
        var strays: [StrayFile] = []
        var caches: [CacheFile] = []
        let cachesOfBytes: [(folder: String, kind: DisplayKind)] = [
            ("derived/previews/", .preview), ("derived/proxies/", .movie), ("derived/thumbnails/", .thumbnail),
        ]
        for top in [layout.originals, layout.derived] {
            guard let walker = FileManager.default.enumerator(at: top, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            var batch: [(String, URL)] = []
            func flush() throws {
                try catalog.read { db in
                    for (path, url) in batch where try !CatalogFile.isNamed(path, db) {
                        let sha = url.deletingPathExtension().lastPathComponent
                        if let cache = cachesOfBytes.first(where: { path.hasPrefix($0.folder) }), sha.count == 64, try CatalogFile.hasBytes(sha, db) {
                            caches.append(CacheFile(path: path, url: url, kind: cache.kind, source: sha))
                            continue
                        }
                        strays.append(StrayFile(path: path, url: url, queued: try FileRemovalRecord.isQueued(path, db)))
                    }
                }
                batch.removeAll(keepingCapacity: true)
            }
            for case let url as URL in walker {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
                batch.append((layout.relative(url), url))
                if batch.count == 512 { try flush() }
            }
            try flush()
        }
        return (strays.sorted { $0.path < $1.path }, caches.sorted { $0.path < $1.path })
    }

    private static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }
}
