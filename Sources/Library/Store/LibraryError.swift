import Foundation

/// Why a library operation failed, in words a user can act on.
public enum LibraryError: Error, CustomStringConvertible, Equatable {
    case noLibrary(path: String)
    case notALibrary(path: String)
    case newerCatalog(path: String, unknownMigrations: [String])
    /// SQLite cannot read the catalog file (not a database, or its pages are corrupt).
    case damagedCatalog(path: String, detail: String)
    case io(path: String, operation: String, errno: Int32)
    case changedDuringImport(path: String)
    case assetNotFound(String)
    case exists(path: String)
    /// A FIFO, device, socket or folder where a file was expected: never read (a FIFO
    /// blocks, /dev/zero never ends).
    case notAFile(path: String, kind: String)
    /// The library is on storage this process cannot write.
    case readOnly(path: String)
    /// A read-only library whose catalog an older camlib wrote.
    case readOnlyNeedsMigration(path: String, migrations: [String])
    /// A listing continued from a cursor of a listing in another order.
    case cursorOfAnotherOrder(sort: String, descending: Bool)
    /// The asset is in the trash: it has to be restored before it can be changed.
    case inTrash(asset: Int64, trashedAt: String)
    /// A catalog path that points outside the library folder (an edited or damaged catalog).
    case outsideLibrary(asset: Int64, path: String)
    /// A file of the library whose bytes are not the ones the catalog recorded.
    case damaged(asset: Int64, path: String, detail: String)
    /// A step only a catalog in the library folder (SQLite) has was given one on PostgreSQL.
    case sqliteOnly(url: String)
    /// The catalog is on PostgreSQL already.
    case catalogOnPostgresAlready(url: String)
    /// The catalog is in the library's folder already.
    case catalogInFolderAlready(path: String)
    /// `catalog.url` does not hold a PostgreSQL URL camlib can use.
    case badCatalogPointer(path: String, detail: String)

    public var description: String {
        switch self {
        case .noLibrary(let path):
            "no camlib library at \(path) (`camlib import` creates one; choose another with --library or CAMLIB_LIBRARY)"
        case .notALibrary(let path):
            "\(path) exists but is not a camlib library (it has files but no catalog.sqlite)"
        case .damagedCatalog(let path, let detail):
            "the catalog \(path) is damaged (SQLite: \(detail)); the originals beside it are untouched: restore catalog.sqlite from a backup, or move the library aside and import its originals/ into a new one"
        case .newerCatalog(let path, let unknown):
            "the catalog \(path) was written by a newer camlib (it has migrations this one does not know: \(unknown.joined(separator: ", ")))"
        case .io(let path, let operation, let code):
            "\(path): \(operation) failed: \(String(cString: strerror(code)))"
        case .changedDuringImport(let path):
            "\(path): the file changed while it was being imported; import it again"
        case .assetNotFound(let what):
            "no asset \(what) in the library"
        case .notAFile(let path, let kind):
            "\(path) is \(kind), not a file: camlib reads only regular files"
        case .exists(let path):
            "\(path) already exists (use --force to replace it)"
        case .readOnly(let path):
            "the library at \(path) is read-only (read-only storage, or no permission to write): this command changes it, so it cannot run there; query, show, aux list, aux extract and export work on a read-only library"
        case .cursorOfAnotherOrder(let sort, let descending):
            "that cursor belongs to a listing in another order; give --sort \(sort)\(descending ? " --reverse" : "") with it"
        case .outsideLibrary(let asset, let path):
            "asset \(asset): the catalog names the file \(path), which is outside the library; camlib does not follow it (`camlib verify` lists every such path; `camlib trash \(asset)` and `camlib trash --empty` remove the asset's rows without touching it)"
        case .damaged(let asset, let path, let detail):
            "asset \(asset): \(path): \(detail); `camlib verify` checks the whole library"
        case .inTrash(let asset, let since):
            "asset \(asset) is in the trash (since \(since)); `camlib restore \(asset)` brings it back first"
        case .sqliteOnly(let url):
            "camlib internal error: a step that reads a catalog in the library folder was given this library's catalog on PostgreSQL (\(url))"
        case .catalogOnPostgresAlready(let url):
            "this library's catalog is on PostgreSQL already (\(url))"
        case .catalogInFolderAlready(let path):
            "this library's catalog is in its folder already (\(path))"
        case .badCatalogPointer(let path, let detail):
            "\(path) should say where the library's catalog is on PostgreSQL, but: \(detail)"
        case .readOnlyNeedsMigration(let path, let migrations):
            "the catalog \(path) was written by an older camlib and needs upgrading (\(migrations.joined(separator: ", "))), which needs writing, but it is read-only; open it once where it is writable"
        }
    }
}
