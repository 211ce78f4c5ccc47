import Foundation

extension PhotoLibrary {
    /// Copies this library's catalog from PostgreSQL into a new `catalog.sqlite` in its
    /// folder, checks the copy table by table, and only then makes the library use it
    /// (`catalog.url` is removed). The PostgreSQL database is left as it was, for its
    /// owner to drop. What other processes write to it meanwhile is not copied: stop
    /// other camlib processes on the library first. The library is closed afterwards.
    public func moveCatalogIntoFolder(progress: (CatalogCopy.Progress) -> Void = { _ in }) throws -> [CatalogCopyTable] {
        guard case .postgres(let postgres) = catalog.store else { throw LibraryError.catalogInFolderAlready(path: catalog.path) }
        guard !isReadOnly else { throw LibraryError.readOnly(path: root.path) }
        // Made in tmp/ (emptied of what a crash leaves), then renamed into place whole.
        try FileAccessError.makeFolder(temporary, for: "the library's temporary files")
        let partial = temporary.appendingPathComponent(AtomicFile.temporaryName(".part"))
        // The new catalog's own files: its -wal and -shm, and the lock its migrations took.
        func removeLeftovers(_ also: [String]) {
            for path in also + [partial.path + "-wal", partial.path + "-shm", temporary.appendingPathComponent("." + partial.lastPathComponent + ".lock").path] {
                unlink(path)
            }
        }
        let copy = try Catalog(path: partial.path, access: .readWrite(concurrent: false))
        let tables: [CatalogCopyTable]
        do {
            tables = try copy.sqliteWrite { db in try CatalogCopy.back(from: postgres, into: db, progress: progress).tables }
            try copy.close()
        } catch {
            try? copy.close()
            removeLeftovers([partial.path])
            throw error
        }
        removeLeftovers([])
        guard link(partial.path, layout.catalog.path) == 0 else {
            let code = errno
            unlink(partial.path)
            throw code == EEXIST ? LibraryError.exists(path: layout.catalog.path) : LibraryError.io(path: layout.catalog.path, operation: "link", errno: code)
        }
        unlink(partial.path)
        guard unlink(layout.catalogPointer.path) == 0 else {
            throw LibraryError.io(path: layout.catalogPointer.path, operation: "remove", errno: errno)
        }
        try catalog.close()
        return tables
    }
}
