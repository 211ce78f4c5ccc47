import Foundation

/// A camlib library on disk: its files, laid out as ``LibraryLayout`` says, and its
/// ``Catalog``. `tmp/` is emptied of abandoned files whenever it is opened for writing.
public final class PhotoLibrary: Sendable {
    public let root: URL
    public let layout: LibraryLayout
    public let catalog: Catalog
    /// Set on a library that rehearses a change on a copy of the catalog
    /// (``rehearsing()``): nothing of it reaches the library.
    let rehearsal: Rehearsal?

    /// Where work in progress is staged: the library's tmp/, or a rehearsal's own folder
    /// (a dry run writes nothing into the library, which may be on read-only storage).
    public var temporary: URL { rehearsal.map { $0.folder.appendingPathComponent("tmp") } ?? layout.temporary }
    public static let catalogName = LibraryLayout.catalogName

    /// What a command needs of the library it opens.
    public enum OpenMode: Sendable {
        /// To add to it, making it first if there is none (`import`, `capture`).
        case create
        /// To change it; it must exist and be writable (`edit`, `revert`, `aux attach`).
        case write
        /// To read it (`query`, `show`, `export`, `aux list`): also a library on
        /// read-only storage, whose catalog is then opened read-only.
        case read
    }

    /// Opens the library at `root`. A library that does not exist is an error unless
    /// `mode` is `.create`; one on storage this process cannot write is an error unless
    /// `mode` is `.read`. `willMigrate` hears the catalog migrations about to be
    /// applied to an existing library (a newer camlib opening it for the first time).
    public init(root: URL, mode: OpenMode, willMigrate: ([String]) -> Void = { _ in }) throws {
        self.root = root
        let layout = LibraryLayout(root: root)
        self.layout = layout
        let fm = FileManager.default
        let catalogPath = layout.catalog.path
        if let location = try Self.postgresCatalog(of: layout) {
            let writable = access(root.path, W_OK) == 0
            guard writable || mode == .read else { throw LibraryError.readOnly(path: root.path) }
            catalog = try Catalog(postgres: location, willMigrate: willMigrate)
            rehearsal = nil
            if writable {
                for dir in layout.folders { try FileAccessError.makeFolder(dir, for: "the library") }
                removeAbandonedTemporaries()
            }
            return
        }
        var exists = fm.fileExists(atPath: catalogPath)
        // A library is created by one process at a time: the others wait, then open it.
        var creating: FileLock?
        if !exists, mode == .create {
            try FileAccessError.makeFolder(root, for: "a library")
            creating = try FileLock(root.appendingPathComponent(".camlib-create.lock").path)
            exists = fm.fileExists(atPath: catalogPath)
        }
        defer { withExtendedLifetime(creating) {} }
        if !exists {
            guard mode == .create else { throw LibraryError.noLibrary(path: root.path) }
            if let contents = try? fm.contentsOfDirectory(atPath: root.path), !contents.filter({ !$0.hasPrefix(".") }).isEmpty {
                throw LibraryError.notALibrary(path: root.path)
            }
        }
        let writable = !exists || Self.canWrite(root: root, catalog: catalogPath)
        guard writable || mode == .read else { throw LibraryError.readOnly(path: root.path) }
        if writable {
            try FileAccessError.makeFolder(root, for: "a library")
            for dir in layout.folders { try FileAccessError.makeFolder(dir, for: "the library") }
        }
        catalog = try Catalog(path: catalogPath, access: writable ? .readWrite(concurrent: mode != .read) : .readOnly, willMigrate: willMigrate)
        rehearsal = nil
        if writable { removeAbandonedTemporaries() }
    }

    /// Whether a library is at `root`: a catalog in it, or a `catalog.url` saying where it is.
    public static func exists(at root: URL) -> Bool {
        let layout = LibraryLayout(root: root)
        return FileManager.default.fileExists(atPath: layout.catalog.path) || FileManager.default.fileExists(atPath: layout.catalogPointer.path)
    }

    /// Where the library's catalog is on PostgreSQL, when `catalog.url` says so.
    static func postgresCatalog(of layout: LibraryLayout) throws -> PostgresLocation? {
        let pointer = layout.catalogPointer
        guard let data = FileManager.default.contents(atPath: pointer.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            return try PostgresLocation(url: text)
        } catch {
            throw LibraryError.badCatalogPointer(path: pointer.path, detail: "\(error)")
        }
    }

    /// The same library with another catalog: a rehearsal's (``rehearsing()``).
    init(root: URL, catalog: Catalog, rehearsal: Rehearsal?) {
        self.root = root
        self.layout = LibraryLayout(root: root)
        self.catalog = catalog
        self.rehearsal = rehearsal
    }

    deinit {
        rehearsal?.discard()
    }

    /// Whether this process may change the library: its folder and catalog are writable
    /// (false on a read-only mount, for root too, and for another user's files).
    static func canWrite(root: URL, catalog: String) -> Bool {
        access(root.path, W_OK) == 0 && access(catalog, W_OK) == 0
    }

    /// Whether this library can be changed by this process.
    public var isReadOnly: Bool { catalog.access == .readOnly }

    /// Absolute location of a catalog path.
    public func absolute(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// Where a file of `asset` that the catalog names is, refusing a path that leads out
    /// of the library (an edited or damaged catalog): what reads or writes a file a row
    /// names goes through here.
    func file(_ relative: String, of asset: Int64) throws -> URL {
        guard let url = layout.confined(relative) else { throw LibraryError.outsideLibrary(asset: asset, path: relative) }
        return url
    }

    /// A path relative to the library root, as stored in the catalog.
    func relative(_ url: URL) -> String { layout.relative(url) }

    /// Temporary files are named `HOST-PID-UUID.part`; those of processes that no longer run
    /// were left by a crash and are deleted.
    func removeAbandonedTemporaries() {
        AtomicFile.removeAbandonedTemporaries(in: temporary)
    }

    /// Whether a process runs. A zombie does not (it has exited but, where PID 1 does not
    /// reap orphans, as in many containers, `kill(pid, 0)` still finds it). A reused PID
    /// keeps a file until a later open: harmless.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].drop(while: { $0 == " " }).first
        return state != "Z" && state != "X"
    }
}
