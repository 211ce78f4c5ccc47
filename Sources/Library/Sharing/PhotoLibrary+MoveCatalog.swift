import Foundation

extension PhotoLibrary {
    /// The name the SQLite catalog keeps in the library folder once its rows are on
    /// PostgreSQL: nothing deletes it, and nothing opens it again.
    public static let catalogMovedName = "catalog-moved-to-postgresql.sqlite"

    /// Copies this library's SQLite catalog into the empty PostgreSQL database at
    /// `location` (migrating it first), checks the copy table by table, and only then
    /// makes the library use it: `catalog.url` says where it is, and `catalog.sqlite` is
    /// renamed ``catalogMovedName``. Other processes' writes wait while it copies (the
    /// copy is of one state); a process that has the library open meanwhile goes on with
    /// the SQLite catalog, so other camlib processes on the library (serve, worker,
    /// import) are to be stopped first.
    /// `progress` hears each stage of the copy and its check as it ends. The library is closed
    /// afterwards; open it again to use the new catalog.
    public func moveCatalog(to location: PostgresLocation, progress: (CatalogCopy.Progress) -> Void = { _ in }) throws -> [CatalogCopyTable] {
        guard !catalog.isPostgres else { throw LibraryError.catalogOnPostgresAlready(url: catalog.path) }
        guard rehearsal == nil, !isReadOnly else { throw LibraryError.readOnly(path: root.path) }
        let target = try PostgresCatalog(location: location)
        defer { target.close() }
        let tables = try catalog.sqliteWrite { db in
            let report = try CatalogCopy(source: catalog, target: target).run(db, progress: progress)
            // Said while other writers still wait: from here on the library's catalog is there.
            try AtomicFile.write(Array((location.storable + "\n").utf8), to: layout.catalogPointer, overwrite: false)
            return report.tables
        }
        try catalog.close()
        let moved = root.appendingPathComponent(Self.catalogMovedName)
        guard rename(layout.catalog.path, moved.path) == 0 else {
            throw LibraryError.io(path: layout.catalog.path, operation: "rename to \(moved.lastPathComponent)", errno: errno)
        }
        return tables
    }
}
