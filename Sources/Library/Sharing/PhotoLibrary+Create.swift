import Foundation

extension PhotoLibrary {
    /// ``create(at:postgres:)`` with the catalog's URL as a person writes it
    /// (`postgresql://…`); nil: the catalog in the folder.
    public static func create(at root: URL, catalogURL: String?) throws -> PhotoLibrary {
        try create(at: root, postgres: try catalogURL.map(PostgresLocation.init(url:)))
    }

    /// Makes a new, empty library at `root` (a folder that does not exist or is empty),
    /// its catalog in the folder, or on PostgreSQL at `postgres`: an empty database, made
    /// on the server beforehand, which this migrates. The server is reached and the
    /// database checked before anything is written into the folder.
    public static func create(at root: URL, postgres: PostgresLocation? = nil) throws -> PhotoLibrary {
        guard !exists(at: root) else { throw LibraryError.exists(path: root.path) }
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: root.path), !contents.filter({ !$0.hasPrefix(".") }).isEmpty {
            throw LibraryError.notALibrary(path: root.path)
        }
        guard let postgres else { return try PhotoLibrary(root: root, mode: .create) }
        let catalog = try Catalog(postgres: postgres)
        do {
            let assets = try catalog.read { db in try AssetRecord.count(db) }
            guard assets == 0 else { throw PostgresCatalogError.notEmpty(url: postgres.description, assets: assets) }
            let library = PhotoLibrary(root: root, catalog: catalog, rehearsal: nil)
            // The pointer first: should it fail, the folder is left empty, as it was.
            try FileAccessError.makeFolder(root, for: "a library")
            try AtomicFile.write(Array((postgres.storable + "\n").utf8), to: library.layout.catalogPointer, overwrite: false)
            for folder in library.layout.folders { try FileAccessError.makeFolder(folder, for: "the library") }
            return library
        } catch {
            try? catalog.close()
            throw error
        }
    }
}
