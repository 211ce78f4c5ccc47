import Testing

/// Where a test's library keeps its catalog: the suites that a library on either backend
/// must pass run once on each.
public enum CatalogBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    public var testDescription: String { rawValue }

    /// The URL of a new, empty catalog for a library: nil on SQLite (the catalog is made
    /// in the library's folder), else a new database on this test process's server.
    public func newCatalogURL(_ label: String = "library") throws -> String? {
        switch self {
        case .sqlite: return nil
        case .postgresql:
            let server = try PostgresServer.shared()
            return server.url(database: try server.createDatabase(label))
        }
    }
}
