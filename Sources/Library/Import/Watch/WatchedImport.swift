import Foundation
import Synchronization

/// `camlib import --watch`: imports what appears in folders that something else fills
/// (Syncthing, PhotoSync, Nextcloud, a card reader's copy), as it appears.
///
/// - A file is taken once it has stopped changing for ``Options/settle`` seconds and the
///   program writing it has closed it: one being written is never read half-way, even
///   when its writer pauses. A file left open and unchanged for ``Options/stalledWriter``
///   seconds (a writer that hung) is taken as it is.
/// - Partial files are left alone (`*.part`, `*.tmp`, `*.crdownload`, `*~`, `.syncthing.*`,
///   other hidden names), until they are renamed to their real name: then they are new.
///   A file renamed after it was imported is left alone too.
/// - A Live Photo's movie that arrives after its still joins it, as `camlib import` of
///   the movie alone would; an `.AAE` that arrives before its photo is tried again when
///   photos come, for an hour.
/// - A watched folder that goes (deleted, or its disk unmounted) is waited for, and
///   scanned when it is back: what arrived meanwhile, and is not known by name and size
///   among the files imported from there, is imported. A disk mounted on the folder
///   itself (`/media/USER/CARD`) is back when a disk is mounted there again, not when the
///   bare folder it leaves is seen.
///
/// `events` hears every outcome (``Event``); ``stop()`` (SIGTERM) ends ``run(events:)`` after
/// the import under way.
public final class WatchedImport: Sendable {
    public struct Options: Sendable {
        /// Seconds a file must stay unchanged before it is imported.
        public var settle: Double = 3
        /// Seconds a file still open for writing must stay unchanged before it is imported anyway.
        public var stalledWriter: Double = 120
        public var importOptions = ImportOptions(queueDerivedWork: true, recordsFiles: true)
        public init() {}
    }

    public enum Event: Sendable {
        case watching(folder: String)
        case file(ImportedFile)
        /// A file renamed in a watched folder after it was imported: left alone.
        case renamed(from: String, to: String)
        case folderGone(String)
        case folderBack(String)
        /// An import ran: its report (for its jobs).
        case imported(ImportReport)
    }

    public let library: PhotoLibrary
    public let folders: [String]
    public let options: Options
    private let stopping = Atomic<Bool>(false)
    private let running = Mutex<Importer?>(nil)

    public init(library: PhotoLibrary, folders: [String], options: Options = Options()) {
        self.library = library
        self.folders = folders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        self.options = options
    }

    /// Stops after the files being committed now; those not reached are imported the next
    /// time the folders are watched (or imported).
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        running.withLock { $0?.cancel() }
    }
    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// A name that something is still writing, or that hides a file.
    public static func isPartial(_ name: String) -> Bool {
        let lower = name.lowercased()
        return name.hasPrefix(".") || name.hasSuffix("~")
            || [".part", ".partial", ".tmp", ".crdownload", ".download", ".!sync", ".filepart"].contains { lower.hasSuffix($0) }
    }

    private struct Pending {
        var size: Int64
        var modified: Double
        var quietSince: Date
        /// Written to since the last time its writer closed it.
        var open: Bool
    }

    /// Watches until ``stop()``; throws when a folder cannot be watched at the start.
    public func run(events: (Event) -> Void) throws {
        let watcher = try FolderWatcher()
        var pending: [String: Pending] = [:]
        // Folders gone, each with the folder left at its path when its disk was unmounted
        // (the bare mount point): that one is not the folder back.
        var gone: [String: FolderIdentity?] = [:]
        var orphanSidecars: [String: Date] = [:]
        var reported = Set<String>()  // skipped or failed files, said once while unchanged

        /// `open`: whether its writer may still be writing (nil: as it was before).
        func notice(_ path: String, open: Bool? = false) {
            let name = (path as NSString).lastPathComponent
            guard !Self.isPartial(name) else { return }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
            let size = Int64(info.st_size), modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            let isOpen = open ?? pending[path]?.open ?? false
            if let seen = pending[path], seen.size == size, seen.modified == modified {
                pending[path]?.open = isOpen
                return
            }
            pending[path] = Pending(size: size, modified: modified, quietSince: Date(), open: isOpen)
        }

        /// Every file under `folder` that the library does not know by name and size as imported from its folder.
        func scan(_ folder: String) {
            var known: [String: Set<String>] = [:]
            let enumerator = FileManager.default.enumerator(atPath: folder)
            while let relative = enumerator?.nextObject() as? String {
                let path = folder + "/" + relative
                let name = (path as NSString).lastPathComponent
                if Self.isPartial(name) {
                    if name.hasPrefix("."), (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory {
                        enumerator?.skipDescendants()
                    }
                    continue
                }
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let parent = (path as NSString).deletingLastPathComponent
                if known[parent] == nil { known[parent] = (try? library.importedNamesAndSizes(from: parent)) ?? [] }
                if known[parent]!.contains("\(name)/\(info.st_size)") { continue }
                notice(path)
            }
        }

        for folder in folders {
            var info = stat()
            guard stat(folder, &info) == 0 else { throw WatchError.cannotWatch(path: folder, detail: String(cString: strerror(errno))) }
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WatchError.notAFolder(path: folder) }
            try watcher.watch(root: folder)
            events(.watching(folder: folder))
            scan(folder)
        }

        var lastLook = Date.distantPast
        while !isStopping {
            for change in watcher.changes(timeout: 0.25) {
                switch change {
                case .written(let path, let closed):
                    notice(path, open: !closed)
                case .movedIn(let path, let from):
                    if let from, let waiting = pending.removeValue(forKey: from) {
                        // Renamed while it was still being written: it goes on under its new name.
                        if !Self.isPartial((path as NSString).lastPathComponent) { pending[path] = waiting }
                        notice(path, open: nil)
                    } else if let from, !Self.isPartial((from as NSString).lastPathComponent) {
                        if !Self.isPartial((path as NSString).lastPathComponent) { events(.renamed(from: from, to: path)) }
                    } else {
                        notice(path)
                    }
                case .folderMade(let path):
                    scan(path)
                case .rootGone(let root, let unmounted):
                    watcher.forget(root: root)
                    pending = pending.filter { !$0.key.hasPrefix(root + "/") }
                    gone.updateValue(unmounted ? FolderIdentity(of: root) : nil, forKey: root)
                    events(.folderGone(root))
                case .overflow:
                    for folder in folders where gone.index(forKey: folder) == nil { scan(folder) }
                }
            }
            // Folders that went: looked for every second; scanned when back.
            if !gone.isEmpty, Date().timeIntervalSince(lastLook) >= 1 {
                lastLook = Date()
                for (root, mountPoint) in gone {
                    guard let here = FolderIdentity(of: root), here != mountPoint, (try? watcher.watch(root: root)) != nil else { continue }
                    gone[root] = nil
                    events(.folderBack(root))
                    scan(root)
                }
            }
            // Files that stopped changing.
            let now = Date()
            var ready: [String] = []
            for (path, seen) in pending {
                var info = stat()
                guard stat(path, &info) == 0 else {
                    pending[path] = nil
                    continue
                }
                let size = Int64(info.st_size), modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                if size != seen.size || modified != seen.modified {
                    pending[path] = Pending(size: size, modified: modified, quietSince: now, open: seen.open)
                } else if now.timeIntervalSince(seen.quietSince) >= (seen.open ? max(options.settle, options.stalledWriter) : options.settle) {
                    ready.append(path)
                }
            }
            guard !ready.isEmpty, !isStopping else { continue }
            for path in ready { pending[path] = nil }
            let retried = orphanSidecars.filter { now.timeIntervalSince($0.value) < 3600 }.keys.filter { !ready.contains($0) }
            let report = importFiles(ready.sorted() + retried.sorted())
            events(.imported(report))
            for file in report.fileOutcomes ?? [] where !(report.interrupted && file.outcome == .failed && file.message == ImportedFile.notReached) {
                let isRetry = retried.contains(file.path)
                if file.outcome == .skipped, (file.message ?? "").contains("without its photo") {
                    if !isRetry { orphanSidecars[file.path] = now }
                    continue  // said once it attaches, or never
                }
                orphanSidecars[file.path] = nil
                let key = "\(file.path)\u{0}\(file.outcome.rawValue)\u{0}\(file.message ?? "")"
                if file.outcome == .skipped || file.outcome == .failed {
                    guard reported.insert(key).inserted else { continue }
                }
                events(.file(file))
            }
        }
    }

    private func importFiles(_ paths: [String]) -> ImportReport {
        let importer = Importer(library: library, options: options.importOptions)
        running.withLock { $0 = importer }
        defer { running.withLock { $0 = nil } }
        if isStopping { importer.cancel() }
        do {
            return try importer.run(paths: paths)
        } catch {
            var report = ImportReport(library: library.root.path)
            report.fileOutcomes = paths.map { ImportedFile(path: $0, outcome: .failed, message: "\(error)") }
            return report
        }
    }
}

/// A folder as the file system knows it: its device and inode.
struct FolderIdentity: Equatable {
    var device: UInt64, inode: UInt64

    /// The folder at `path`; nil when there is none (or it is not a folder).
    init?(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
