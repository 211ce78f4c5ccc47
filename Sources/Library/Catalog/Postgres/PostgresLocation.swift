import Foundation

/// Where a catalog on a PostgreSQL server is: a `postgresql://` URL as libpq reads it.
///
/// - `postgresql://USER@HOST[:PORT]/DATABASE` over TCP;
/// - `postgresql://USER@/DATABASE?host=/run/postgresql` (or the folder percent-encoded as
///   the host, `postgresql://USER@%2Frun%2Fpostgresql/DATABASE`) over the server's unix
///   socket in that folder.
///
/// A password is taken from the URL, else `PGPASSWORD`, else the password file
/// (`PGPASSFILE`, else `~/.pgpass`) as libpq reads it; it is never written into the
/// library (``storable`` leaves it out) and never printed (``description`` masks it).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    /// Given in the URL itself; nil means "ask the environment" (``password(environment:)``).
    public var password: String?
    /// A host name or address for TCP; nil for a unix socket.
    public var host: String?
    /// The folder holding the server's socket (`.s.PGSQL.PORT`), for a unix socket.
    public var socketFolder: String?
    public var port: Int
    public var database: String

    public static let defaultPort = 5432
    public static let defaultSocketFolder = "/var/run/postgresql"

    /// Whether `text` names a PostgreSQL catalog rather than a file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Reads a URL; throws ``PostgresCatalogError/badURL(_:why:)`` saying what is wrong.
    public init(url text: String) throws {
        func bad(_ why: String) -> PostgresCatalogError { .badURL(Self.mask(text), why: why) }
        guard Self.isURL(text) else { throw bad("it does not start with postgresql://") }
        let rest = String(text[text.range(of: "://")!.upperBound...])
        // Split by hand: a percent-encoded socket folder as the host is not a host URLComponents accepts.
        let (beforeQuery, query) = rest.split(separator: "?", maxSplits: 1).map(String.init).pair
        let (authority, path) = beforeQuery.firstIndex(of: "/").map { (String(beforeQuery[..<$0]), String(beforeQuery[beforeQuery.index(after: $0)...])) }
            ?? (beforeQuery, "")
        var userInfo = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            hostPort = String(authority[authority.index(after: at)...])
        }
        let (userPart, passwordPart) = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init).pair
        user = Self.decode(userPart)
        password = passwordPart.map(Self.decode)
        var port = Self.defaultPort
        var hostText = hostPort
        let portColon = hostPort.hasPrefix("[")
            ? hostPort.firstIndex(of: "]").flatMap { hostPort[$0...].firstIndex(of: ":") } : hostPort.lastIndex(of: ":")
        if let colon = portColon {
            guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                throw bad("the port is not a number from 1 to 65535")
            }
            port = number
            hostText = String(hostPort[..<colon])
        }
        hostText = Self.decode(hostText).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        database = Self.decode(path)
        var socketFolder: String?
        for item in (query ?? "").split(separator: "&") {
            let (key, value) = item.split(separator: "=", maxSplits: 1).map(String.init).pair
            let decoded = Self.decode(value ?? "")
            switch key {
            case "host": if decoded.hasPrefix("/") { socketFolder = decoded } else { hostText = decoded }
            case "port":
                guard let number = Int(decoded), (1...65535).contains(number) else { throw bad("the port is not a number from 1 to 65535") }
                port = number
            case "user": user = decoded
            case "dbname": database = decoded
            case "password": password = decoded
            case "sslmode" where decoded == "disable": break
            case "sslmode": throw bad("camlib does not speak TLS to PostgreSQL yet (sslmode=\(decoded)): use the server's unix socket, or a network you trust, with sslmode=disable")
            default: throw bad("camlib does not know the parameter \(key) (it reads host, port, user, dbname, sslmode=disable)")
            }
        }
        if hostText.hasPrefix("/") { socketFolder = hostText }
        self.port = port
        self.socketFolder = socketFolder ?? (hostText.isEmpty ? Self.defaultSocketFolder : nil)
        self.host = self.socketFolder == nil ? hostText : nil
        if user.isEmpty { user = ProcessInfo.processInfo.environment["PGUSER"] ?? NSUserName() }
        if database.isEmpty { throw bad("it names no database (postgresql://USER@HOST/DATABASE)") }
    }

    /// The URL as the library keeps it: everything but the password.
    public var storable: String {
        var text = "postgresql://\(Self.encode(user))@"
        if let host {
            text += host.contains(":") ? "[\(host)]" : Self.encode(host)
            if port != Self.defaultPort { text += ":\(port)" }
            text += "/\(Self.encode(database))"
        } else {
            // A folder's slashes may stand in a query as they are, and read better so.
            text += "/\(Self.encode(database))?host=\(Self.encode(socketFolder ?? Self.defaultSocketFolder, keeping: "/"))"
            if port != Self.defaultPort { text += "&port=\(port)" }
        }
        return text
    }

    /// The URL to show: ``storable``, with `:***` where a password was given in it.
    public var description: String {
        guard password != nil else { return storable }
        return storable.replacingOccurrences(of: "postgresql://\(Self.encode(user))@", with: "postgresql://\(Self.encode(user)):***@")
    }

    /// The password to log in with: the URL's, else `PGPASSWORD`, else the first matching
    /// line of the password file (`PGPASSFILE`, else `~/.pgpass`; ignored unless only its
    /// owner can read it, as libpq does). nil: log in without one.
    public func password(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let password { return password }
        if let given = environment["PGPASSWORD"], !given.isEmpty { return given }
        let file = environment["PGPASSFILE"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
        var status = stat()
        guard stat(file, &status) == 0, status.st_mode & 0o077 == 0, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        // A socket connection matches "localhost" as libpq's does.
        let hostName = host ?? "localhost"
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.passFileFields(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [hostName, String(port), database, user]
            if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A password file's line split at its colons, `\:` and `\\` read as `:` and `\`.
    static func passFileFields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }

    /// A URL as it may be shown: a password in it replaced by `***`.
    public static func mask(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
        var masked = text
        if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        {
            masked.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        if let range = masked.range(of: "password=") {
            let end = masked[range.upperBound...].firstIndex(of: "&") ?? masked.endIndex
            masked.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return masked
    }

    private static func decode(_ text: String) -> String { text.removingPercentEncoding ?? text }

    private static func encode(_ text: String, keeping kept: String = "") -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~" + kept)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

extension Array where Element == String {
    /// The first element and the second, if any: what a split in two gave.
    fileprivate var pair: (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}
