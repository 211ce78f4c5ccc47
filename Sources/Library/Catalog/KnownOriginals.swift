import GRDB

/// Answers whether a library holds an original with a given sha256, from a connection of
/// its own to the catalog: read-only to a SQLite file, or to the PostgreSQL server its
/// URL names. A hint only: the import checks again when it commits.
final class KnownOriginals {
    let catalogPath: String
    private let queue: DatabaseQueue?
    private let server: PostgresSession?

    init(catalogPath: String) {
        self.catalogPath = catalogPath
        if let location = try? PostgresLocation(url: catalogPath) {
            queue = nil
            server = try? PostgresSession(location)
        } else {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(Catalog.busyTimeout)
            queue = try? DatabaseQueue(path: catalogPath, configuration: config)
            server = nil
        }
    }

    func contains(_ sha256: String) -> Bool {
        let hit =
            if let server {
                try? ResourceRecord.assetHolding(original: sha256, server)
            } else {
                try? queue?.read { db in try ResourceRecord.assetHolding(original: sha256, db) }
            }
        return hit != nil
    }
}
