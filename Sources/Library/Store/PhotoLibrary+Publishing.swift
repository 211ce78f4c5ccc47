import Containers
import Foundation

extension PhotoLibrary {
    /// Links a staged original into `originals/` by its capture month, under its own name
    /// (`NAME-2.EXT` when the name is taken: an original is never replaced).
    func publishOriginal(_ staged: URL, named name: String, capturedAt time: CaptureTime?, syncFolder: Bool = true) throws -> URL {
        try publishOriginal(staged, to: layout.original(named: name, capturedAt: time), syncFolder: syncFolder)
    }

    /// Links a staged original (or sidecar) to `destination`, or `NAME-2.EXT`, … when that
    /// is taken. In a rehearsal, only says where it would go. `syncFolder: false` leaves
    /// fsyncing the folder to the caller (see ``AtomicFile/publish(_:to:syncFolder:)``).
    func publishOriginal(_ staged: URL, to destination: URL, syncFolder: Bool = true) throws -> URL {
        if let rehearsal {
            unlink(staged.path)
            return rehearsal.claim(destination)
        }
        return try AtomicFile.publish(staged, to: destination, syncFolder: syncFolder)
    }

    /// Renames a fsynced temporary file to a derived file's place, replacing what is there
    /// (derived files are named by what they show and can always be made again), and
    /// fsyncs the folder unless `syncFolder` is false (the caller does).
    func publishDerived(_ temporary: URL, to destination: URL, syncFolder: Bool = true) throws -> URL {
        if rehearsal != nil {
            unlink(temporary.path)
            return destination
        }
        let folder = destination.deletingLastPathComponent()
        guard try AtomicFile.placing(in: folder, { rename(temporary.path, destination.path) }) == 0 else {
            throw LibraryError.io(path: destination.path, operation: "rename", errno: errno)
        }
        if syncFolder { try AtomicFile.syncDirectory(folder) }
        return destination
    }
}
