import Foundation

/// Who may use the gallery. On a loopback address, this machine's own users, through a
/// Host header naming the loopback address (a web page cannot rebind its own host name
/// to 127.0.0.1 and read the library); on any other address, only requests that carry
/// the token. Writing requests are POSTs with a header only the gallery's page sets, which
/// a page of another site cannot send without the server's consent (CORS), and that
/// consent is never given.
public struct AccessPolicy: Sendable {
    /// The secret every request must carry (nil: none needed).
    public let token: String?
    /// The host names (without port) a loopback server answers to (nil: any, with a token).
    let loopbackHosts: Set<String>?

    /// The header writing requests carry, with the value `1`.
    public static let writeHeader = "X-Camlib-Request"
    /// The cookie the page's files are requested with once the token was given.
    public static let cookieName = "camlib_token"

    public init(token: String?, host: String) {
        self.token = token
        if token == nil, Self.isLoopback(host) {
            loopbackHosts = ["127.0.0.1", "localhost", "[::1]", host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        } else {
            loopbackHosts = nil
        }
    }

    /// Whether `host` is only reachable from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// A new token: 32 random bytes as hex.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether `given` is the token, compared in constant time.
    func accepts(_ given: String?) -> Bool {
        guard let token else { return true }
        guard let given else { return false }
        let a = Array(token.utf8), b = Array(given.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Whether a loopback server may answer a request for `host`.
    func acceptsHost(_ host: String?) -> Bool {
        guard let loopbackHosts else { return true }
        guard var name = host?.lowercased() else { return false }
        // Without the port: "[::1]:8765" → "[::1]", "localhost:8765" → "localhost".
        if let colon = name.lastIndex(of: ":"), !name[colon...].contains("]") { name = String(name[..<colon]) }
        return loopbackHosts.contains(name)
    }
}
