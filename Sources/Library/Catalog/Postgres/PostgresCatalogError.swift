/// Why a catalog on a PostgreSQL server cannot be used, in words a user can act on. The
/// URL in each is the masked one (``PostgresLocation/description``).
public enum PostgresCatalogError: Error, CustomStringConvertible, Equatable {
    /// The text given as a catalog URL is not one camlib can read.
    case badURL(String, why: String)
    /// No server answers there (not running, wrong host or port, a firewall).
    case unreachable(url: String, detail: String)
    /// The server answered and refused the login (a wrong password, no such role, no
    /// pg_hba.conf line for this client).
    case loginRefused(url: String, detail: String)
    /// The server has no such database.
    case noDatabase(url: String, database: String)
    /// The catalog has migrations this camlib does not know: a newer camlib wrote it.
    case newerSchema(url: String, unknownMigrations: [String])
    /// The server refused a statement; `detail` is its message and SQLSTATE.
    case server(url: String, detail: String)
    /// A catalog is copied only into an empty one.
    case notEmpty(url: String, assets: Int)
    /// A table of the copy differs from the SQLite catalog's (count or checksum).
    case copyDiffers(url: String, table: String, detail: String)
    /// The connection broke while a command used it; nothing after the last commit was kept.
    case lost(url: String, detail: String)

    public var description: String {
        switch self {
        case .badURL(let text, let why):
            "\(text) is not a catalog URL camlib can use: \(why)"
        case .unreachable(let url, let detail):
            "cannot reach the catalog's PostgreSQL server at \(url): \(detail); nothing was changed (is the server running, and does it listen there?)"
        case .loginRefused(let url, let detail):
            "the PostgreSQL server at \(url) refused the login: \(detail); camlib reads the password from PGPASSWORD or ~/.pgpass, never from the library"
        case .noDatabase(let url, let database):
            "the PostgreSQL server at \(url) has no database \(database) (create it: createdb \(database))"
        case .newerSchema(let url, let unknown):
            "the catalog at \(url) was written by a newer camlib (it has migrations this one does not know: \(unknown.joined(separator: ", ")))"
        case .server(let url, let detail):
            "the catalog's PostgreSQL server at \(url) refused a statement: \(detail)"
        case .notEmpty(let url, let assets):
            "the catalog at \(url) is not empty (\(assets) assets); camlib copies a catalog only into an empty database"
        case .copyDiffers(let url, let table, let detail):
            "the copy at \(url) does not match the SQLite catalog in \(table): \(detail)"
        case .lost(let url, let detail):
            "the connection to the catalog at \(url) was lost: \(detail); what was not committed is not in the catalog"
        }
    }
}
