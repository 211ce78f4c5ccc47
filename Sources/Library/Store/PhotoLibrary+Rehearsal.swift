import Foundation
import Synchronization

/// A rehearsal: a change run in full on a copy of the catalog, which is then thrown
/// away. Files are analysed and staged as for real, but none is placed in the library:
/// publishing one only says where it would go. `import --dry-run` rehearses an import,
/// so it reports what the import would do (new assets, duplicates, Live Photo pairs
/// made within the batch, sidecars attached, errors) by the very code that does it.
/// Only an import can be rehearsed: it places every file through
/// ``PhotoLibrary/publishOriginal(_:to:)`` and ``PhotoLibrary/publishDerived(_:to:)``,
/// which a rehearsal turns into claims.
final class Rehearsal: Sendable {
    /// The folder holding the catalog's copy; deleted with the rehearsal's library.
    let folder: URL
    /// Paths handed out so far: two files of one name get `-2` as for real.
    private let claimed = Mutex<Set<String>>([])

    init(folder: URL) {
        self.folder = folder
    }

    /// `destination`, or `NAME-2.EXT`, … when a file is there or an earlier file of the
    /// rehearsal would have gone there.
    func claim(_ destination: URL) -> URL {
        claimed.withLock { claimed in
            let folder = destination.deletingLastPathComponent()
            let ext = destination.pathExtension
            let stem = destination.deletingPathExtension().lastPathComponent
            var candidate = destination
            var n = 1
            while claimed.contains(candidate.path) || FileManager.default.fileExists(atPath: candidate.path) {
                n += 1
                candidate = folder.appendingPathComponent(ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)")
            }
            claimed.insert(candidate.path)
            return candidate
        }
    }

    func discard() {
        try? FileManager.default.removeItem(at: folder)
    }
}

extension PhotoLibrary {
    /// This library with a copy of its catalog, taken now (SQLite's online backup: other
    /// processes go on reading and writing meanwhile). What is done to the copy is
    /// forgotten when the returned library goes. Costs a copy of the catalog, in the
    /// system's temporary folder.
    public func rehearsing() throws -> PhotoLibrary {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("camlib-rehearsal-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let rehearsal = Rehearsal(folder: folder)
        do {
            let path = folder.appendingPathComponent(LibraryLayout.catalogName).path
            try catalog.backup(to: path)
            return PhotoLibrary(root: root, catalog: try Catalog(path: path, access: .readWrite(concurrent: false)), rehearsal: rehearsal)
        } catch {
            rehearsal.discard()
            throw error
        }
    }

    /// Whether this library is a rehearsal's: changes to it are thrown away.
    public var isRehearsal: Bool { rehearsal != nil }

    /// Deletes a rehearsal's copy of the catalog now (else it goes when this library
    /// does, which a thread that still holds it, or the process's exit, may forestall).
    /// Nothing may use this library afterwards.
    public func endRehearsal() {
        rehearsal?.discard()
    }
}
