import Foundation

/// What trashing or restoring did to one asset.
public struct TrashChange: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// Moved into the trash now.
        case trashed
        /// It was in the trash already (since `trashedAt`).
        case alreadyInTrash
        /// Taken out of the trash, whole.
        case restored
        /// It was not in the trash: nothing to restore.
        case notInTrash
    }

    public var asset: Int64
    public var outcome: Outcome
    /// When it went into the trash (nil once restored, or never trashed).
    public var trashedAt: String?
}

/// An asset in the trash.
public struct TrashedAsset: Codable, Sendable, Equatable {
    public var asset: Int64
    /// UTC, ISO 8601.
    public var trashedAt: String
}

extension PhotoLibrary {
    /// Moves the assets into the trash, all in one transaction. A trashed asset keeps
    /// its files, rows and history; listings (`query`, the gallery) leave it out.
    public func trash(_ ids: [Int64]) throws -> [TrashChange] {
        try catalog.write { db in
            let now = utcNow()
            return try ids.map { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                if let since = try TrashedAssetRecord.trashedAt(id, db) {
                    return TrashChange(asset: id, outcome: .alreadyInTrash, trashedAt: since)
                }
                try TrashedAssetRecord.add(id, at: now, db)
                return TrashChange(asset: id, outcome: .trashed, trashedAt: now)
            }
        }
    }

    /// Takes the assets out of the trash, all in one transaction.
    public func restore(_ ids: [Int64]) throws -> [TrashChange] {
        try catalog.write { db in
            try ids.map { id in
                guard try AssetRecord.exists(id, db) else { throw LibraryError.assetNotFound("with id \(id)") }
                let removed = try TrashedAssetRecord.remove(id, db)
                return TrashChange(asset: id, outcome: removed ? .restored : .notInTrash, trashedAt: nil)
            }
        }
    }

    /// The trash, oldest first; with `before`, what went there before that moment.
    public func trashContents(before: Date? = nil) throws -> [TrashedAsset] {
        try catalog.read { db in
            try TrashedAssetRecord.fetchAll(before: before.map(catalogTime), db).map { TrashedAsset(asset: $0.assetId, trashedAt: $0.trashedAt) }
        }
    }

    /// When the asset went into the trash; nil when it is not there.
    public func trashedAt(_ id: Int64) throws -> String? {
        try catalog.read { db in try TrashedAssetRecord.trashedAt(id, db) }
    }

    /// Which of `ids` are in the trash, in order.
    public func trashed(among ids: Set<Int64>) throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try catalog.read { db in
            try IDList.lists(of: Array(ids)).flatMap { try TrashedAssetRecord.trashedAt(assets: $0, db).keys }.sorted()
        }
    }

    /// Throws ``LibraryError/inTrash(asset:trashedAt:)`` for an asset in the trash: what
    /// changes an asset (edit, revert, attach) waits until it is restored.
    func requireNotTrashed(_ id: Int64, _ db: any CatalogConnection) throws {
        if let since = try TrashedAssetRecord.trashedAt(id, db) { throw LibraryError.inTrash(asset: id, trashedAt: since) }
    }

    /// What emptying the trash did (or, for a dry run, would do).
    public struct TrashEmptying: Codable, Sendable {
        /// The assets deleted, with every row and file of theirs.
        public var assets: [Int64] = []
        /// Files deleted from the library folder (or that would be).
        public var files = 0
        public var bytes: Int64 = 0
        /// Files that could not be deleted: they stay listed in `file_removal`, and the
        /// next `trash --empty` or `repair` tries again.
        public var problems: [String] = []
    }

    /// Deletes the assets in the trash (those that went there before `before`, if given)
    /// for good. Their rows go in one transaction, which also lists every file of theirs
    /// that no remaining row names; the files are deleted after it commits. A crash in
    /// between leaves the list, which the next emptying finishes first. With `dryRun`
    /// nothing changes: the report says what would go. `progress` hears files deleted of
    /// files to delete.
    public func emptyTrash(before: Date? = nil, dryRun: Bool = false, progress: (Int, Int) -> Void = { _, _ in }) throws -> TrashEmptying {
        // What an earlier emptying listed and did not get to delete goes first.
        var report = dryRun ? TrashEmptying() : try removeQueuedFiles(progress: progress)
        let cutoff = before.map(catalogTime)
        let doomed: [String] = try catalog.write { db in
            var doomed: [String] = []
            // A dry run goes through the same statements and takes them back.
            try db.savepoint(undo: dryRun) {
                let assets = try TrashedAssetRecord.fetchAll(before: cutoff, db).map(\.assetId)
                report.assets = assets
                guard !assets.isEmpty else { return }
                let files = try AssetFiles.of(assets, layout: layout, db)
                try AssetRecord.delete(assets, db)
                let named = try FileRemovalRecord.named(files.paths, shas: files.shaOfCache, db)
                doomed = files.paths.filter { !named.contains($0) }
                try FileRemovalRecord.queue(doomed, db)
            }
            return doomed
        }
        if dryRun {
            for path in doomed {
                guard let url = layout.confined(path), let size = Self.fileSize(url) else { continue }
                report.files += 1
                report.bytes += size
            }
            return report
        }
        let removal = try removeQueuedFiles(progress: progress)
        report.files += removal.files
        report.bytes += removal.bytes
        report.problems += removal.problems
        return report
    }

    /// Deletes the files `file_removal` lists, each only if no catalog row names it any
    /// more, and takes them off the list; a file that cannot be deleted stays listed.
    func removeQueuedFiles(progress: (Int, Int) -> Void = { _, _ in }) throws -> TrashEmptying {
        var report = TrashEmptying()
        let queued = try catalog.read { db in try FileRemovalRecord.pending(db) }
        guard !queued.isEmpty else { return report }
        // Named again since it was listed (a re-import of the same bytes): kept, not deleted.
        let named = try catalog.read { db in try FileRemovalRecord.named(queued, shas: [:], db) }
        var done: [String] = []
        var folders: Set<URL> = []
        for (i, path) in queued.enumerated() {
            progress(i, queued.count)
            guard !named.contains(path) else {
                done.append(path)
                continue
            }
            guard let url = layout.confined(path) else {
                report.problems.append("\(path): not a path inside the library; left alone")
                done.append(path)
                continue
            }
            let size = Self.fileSize(url)
            if unlink(url.path) == 0 {
                report.files += 1
                report.bytes += size ?? 0
            } else if errno != ENOENT {
                report.problems.append("\(url.path): \(String(cString: strerror(errno)))")
                continue
            }
            folders.insert(url.deletingLastPathComponent())
            done.append(path)
        }
        progress(queued.count, queued.count)
        // The deletions reach the disk before the list forgets them.
        for folder in folders { try? AtomicFile.syncDirectory(folder) }
        // Folders left empty go (a month of originals, an aux image's folder), up to the
        // kind's own (originals/, derived/thumbnails/, …). A file being placed in one
        // meanwhile makes it again (``AtomicFile/placing(in:_:)``).
        let derivedKinds = ((try? FileManager.default.contentsOfDirectory(atPath: layout.derived.path)) ?? []).map { layout.derived.appendingPathComponent($0) }
        let kinds = Set(([layout.originals, layout.derived, layout.temporary] + derivedKinds).map(\.standardizedFileURL.path))
        let inside = layout.root.standardizedFileURL.path + "/"
        for folder in folders {
            var folder = folder.standardizedFileURL
            while folder.path.hasPrefix(inside), !kinds.contains(folder.path), rmdir(folder.path) == 0 {
                folder = folder.deletingLastPathComponent()
            }
        }
        try catalog.write { db in try FileRemovalRecord.done(done, db) }
        return report
    }

    static func fileSize(_ url: URL) -> Int64? {
        var info = stat()
        return lstat(url.path, &info) == 0 ? Int64(info.st_size) : nil
    }
}
