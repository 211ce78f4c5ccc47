import Containers
import Foundation

extension PhotoLibrary {
    /// Links a staged original into `originals/` by its capture month, under its own name
    /// (`NAME-2.EXT` when the name is taken: an original is never replaced).
    func publishOriginal(
        _ staged: AtomicFile.Temporary, named name: String, capturedAt time: CaptureTime?, syncFolder: Bool = true, _ db: any CatalogConnection
    ) throws -> URL {
        try publishOriginal(staged, to: layout.original(named: name, capturedAt: time), syncFolder: syncFolder, db)
    }

    /// Links a staged original (or sidecar) to `destination`, or `NAME-2.EXT`, … when that
    /// is taken. In a rehearsal, only says where it would go. `syncFolder: false` leaves
    /// fsyncing the folder to the caller (see ``AtomicFile/publish(_:to:syncFolder:reserved:adopting:)``).
    /// A file under a taken name that holds these very bytes and that no row names (an
    /// import killed between placing it and recording it) is adopted, not copied again
    /// as `NAME-2.EXT`. A name a row holds is taken even when its file is missing (moved
    /// away behind camlib's back, which `camlib verify` reports): the row keeps it.
    func publishOriginal(_ staged: AtomicFile.Temporary, to destination: URL, syncFolder: Bool = true, _ db: any CatalogConnection) throws -> URL {
        if let rehearsal {
            unlink(staged.url.path)
            return rehearsal.claim(destination)
        }
        let reserved = { [self] (name: URL) throws -> Bool in try CatalogFile.isNamed(relative(name), db) }
        // A name a row holds (nearly always, when a name is taken: the same camera's
        // numbers, the same names from several phones) is passed over unread; a file no
        // row names is adopted when it holds these very bytes.
        return try AtomicFile.publish(staged.url, to: destination, syncFolder: syncFolder, reserved: reserved) { taken in
            var info = stat()
            guard lstat(taken.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == staged.bytes else { return false }
            return (try? FileReading.sha256(of: taken.path)) == staged.sha256
        }
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
