import Foundation

/// A camlib library on disk:
///
/// ```
/// LIBRARY/
///   catalog.sqlite        the catalog (SQLite, WAL)
///   originals/YYYY/MM/    imported files, byte for byte, read-only
///   derived/thumbnails/   rebuildable files, named by the sha256 of what they show
///   tmp/                  files being written; emptied of abandoned ones on open
/// ```
public final class PhotoLibrary: Sendable {
    public let root: URL
    public let catalog: Catalog

    public var originals: URL { root.appendingPathComponent("originals") }
    public var derived: URL { root.appendingPathComponent("derived") }
    public var thumbnails: URL { derived.appendingPathComponent("thumbnails") }
    public var temporary: URL { root.appendingPathComponent("tmp") }
    public static let catalogName = "catalog.sqlite"

    /// Opens the library at `root`. With `create`, makes it first if it does not exist;
    /// without, a missing library is an error.
    public init(root: URL, create: Bool) throws {
        self.root = root
        let fm = FileManager.default
        let catalogPath = root.appendingPathComponent(Self.catalogName).path
        if !fm.fileExists(atPath: catalogPath) {
            guard create else { throw LibraryError.noLibrary(path: root.path) }
            if let contents = try? fm.contentsOfDirectory(atPath: root.path), !contents.filter({ !$0.hasPrefix(".") }).isEmpty {
                throw LibraryError.notALibrary(path: root.path)
            }
        }
        for dir in [root, root.appendingPathComponent("originals"), root.appendingPathComponent("derived/thumbnails"),
                    root.appendingPathComponent("tmp")] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        catalog = try Catalog(path: catalogPath)
        removeAbandonedTemporaries()
    }

    /// Absolute location of a catalog path.
    public func absolute(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A path relative to the library root, as stored in the catalog.
    func relative(_ url: URL) -> String {
        let base = root.standardizedFileURL.path
        let full = url.standardizedFileURL.path
        return full.hasPrefix(base + "/") ? String(full.dropFirst(base.count + 1)) : full
    }

    /// Temporary files are named `PID-UUID.part`; those of processes that no longer run
    /// were left by a crash and are deleted.
    func removeAbandonedTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names {
            guard let dash = name.firstIndex(of: "-"), let pid = Int32(name[..<dash]) else { continue }
            if pid != getpid(), !Self.isRunning(pid) {
                unlink(temporary.appendingPathComponent(name).path)
            }
        }
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
