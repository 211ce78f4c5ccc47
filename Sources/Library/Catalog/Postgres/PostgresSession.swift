import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to the catalog's PostgreSQL server (postgres-nio), used from camlib's
/// synchronous code as GRDB's connections are: each call waits for its answer. Calls
/// come one at a time (the owner serialises them); the connection's I/O runs on a
/// SwiftNIO event loop, never on the calling thread.
///
/// Errors are ``PostgresCatalogError``s naming the masked URL.
final class PostgresSession: @unchecked Sendable {
    // @unchecked: `connection` is a Sendable postgres-nio connection; `closed` is guarded
    // by `closeLock`; `inTransaction` and `openCursors` are used by the session's owner
    // only, one call at a time; the rest is immutable.
    let location: PostgresLocation
    private let connection: PostgresConnection
    private let logger = Logger(label: "camlib.catalog.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The thread every session's I/O runs on. One is enough: callers wait for each
    /// answer and decode rows on their own threads, and a command pays for starting one
    /// thread rather than one per core (SwiftNIO's shared group).
    private static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// How long connecting may take before the server counts as unreachable.
    static let connectTimeout: Int64 = 10

    init(_ location: PostgresLocation) throws {
        self.location = location
        let password = location.password()
        var configuration: PostgresConnection.Configuration
        if let folder = location.socketFolder {
            configuration = .init(
                unixSocketPath: "\(folder)/.s.PGSQL.\(location.port)", username: location.user, password: password, database: location.database)
        } else {
            configuration = .init(
                host: location.host ?? "localhost", port: location.port, username: location.user, password: password, database: location.database,
                tls: .disable)
        }
        configuration.options.connectTimeout = .seconds(Self.connectTimeout)
        // pg_stat_activity then says which camlib process holds a session (a worker's
        // child, a gallery), as `camlib 4242`.
        configuration.options.additionalStartupParameters = [("application_name", "camlib \(getpid())")]
        do {
            connection = try PostgresConnection.connect(
                on: Self.eventLoops.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw Self.connectionError(error, location, passwordGiven: password != nil)
        }
        failPendingWhenClosed()
    }

    /// Runs one statement, as ``query(_:_:)``; nil when a table it names does not exist
    /// (SQLSTATE 42P01), for a question that a catalog without its schema answers so.
    func queryIfTablesExist(_ sql: String) throws -> [PostgresRow]? {
        do {
            return Array(try sent(sql, PostgresBindings()))
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            return nil
        } catch {
            throw statementError(error)
        }
    }

    private let closeLock = NSLock()
    private var closed = false

    deinit { close() }

    /// Runs one statement with `$1`, `$2`… bound to `values` (nil: NULL), and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [(any PostgresThrowingDynamicTypeEncodable)?] = []) throws -> [PostgresRow] {
        Array(try result(sql, values))
    }

    /// Runs one statement, as ``query(_:_:)``, and returns how many rows it changed.
    @discardableResult
    func command(_ sql: String, _ values: [(any PostgresThrowingDynamicTypeEncodable)?] = []) throws -> Int {
        try result(sql, values).metadata.rows ?? 0
    }

    private func result(_ sql: String, _ values: [(any PostgresThrowingDynamicTypeEncodable)?]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
        do {
            return try sent(sql, bindings, traced: Self.expanded(sql, values))
        } catch {
            throw statementError(error)
        }
    }

    /// Runs one statement, traced (as `traced`, by default the statement), its error as
    /// postgres-nio throws it.
    ///
    /// A statement sent just as the connection closes gets no answer from postgres-nio
    /// (its write's failure is dropped): it is failed here once the connection has been
    /// closed a moment, so that a caller never waits for ever.
    private func sent(_ sql: String, _ bindings: PostgresBindings, traced: @autoclosure () -> String? = nil) throws -> PostgresQueryResult {
        if let trace = TraceSink.shared { trace.write(traced() ?? sql) }
        let answer = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        pendingLock.withLock { pending = answer }
        defer { pendingLock.withLock { pending = nil } }
        if connection.isClosed {
            answer.fail(ConnectionEnded())
        } else {
            connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).cascade(to: answer)
        }
        return try answer.futureResult.wait()
    }

    /// The answer awaited now, failed if the connection closes before it comes.
    private let pendingLock = NSLock()
    private var pending: EventLoopPromise<PostgresQueryResult>?

    /// Why a statement got no answer: the connection closed first.
    struct ConnectionEnded: Error, CustomStringConvertible {
        var description: String {
            "the server closed the connection (it was shut down or restarted, or it ended a session that sat idle in a transaction longer than idle_in_transaction_session_timeout)"
        }
    }

    /// Fails the statement awaited when the connection closes, once postgres-nio has had
    /// a moment to fail it with the server's own reason.
    private func failPendingWhenClosed() {
        let loop = connection.eventLoop
        connection.closeFuture.whenComplete { [weak self] _ in
            // Its own weak capture: a weak capture is a variable, which a task run on another
            // thread may not share.
            loop.scheduleTask(in: .milliseconds(100)) { [weak self] in
                guard let self else { return }
                self.pendingLock.withLock { self.pending }?.fail(ConnectionEnded())
            }
        }
    }

    /// `sql` with each `$n` replaced by its value as a literal, for the trace: a quoted
    /// literal of no declared type, as the value was sent.
    static func expanded(_ sql: String, _ values: [(any PostgresThrowingDynamicTypeEncodable)?]) -> String {
        func literal(_ value: (any PostgresThrowingDynamicTypeEncodable)?) -> String {
            switch value {
            case nil: "NULL"
            case let untyped as UntypedText: "'" + untyped.text.replacingOccurrences(of: "'", with: "''") + "'"
            case let value?: "'\(value)'"
            }
        }
        var out = ""
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let digits = rest[rest.index(after: dollar)...].prefix(while: \.isASCII).prefix(while: \.isNumber)
            if let n = Int(digits), n >= 1, n <= values.count {
                out += literal(values[n - 1])
            } else {
                out += "$" + digits
            }
            rest = rest[digits.endIndex...]
        }
        return out + rest
    }

    /// Runs `body` in a transaction: all of it is committed, or none. `begin` may ask
    /// for another isolation level or a read-only transaction, whose COMMIT changes
    /// nothing and so `commitMayFail`.
    func transaction<T>(begin: String = "BEGIN", commitMayFail: Bool = false, _ body: () throws -> T) throws -> T {
        try query(begin)
        let outer = inTransaction
        inTransaction = true
        defer { inTransaction = outer }
        do {
            let result = try body()
            do {
                try query("COMMIT")
            } catch where commitMayFail {}
            return result
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Whether ``transaction(begin:commitMayFail:_:)`` has begun one that has not ended.
    private(set) var inTransaction = false
    /// How many cursors of ``forEachOfManyRows(_:_:)`` are open, the one at hand's included.
    var openCursors = 0

    /// Runs a script of several statements (a migration), one at a time.
    func run(script: String) throws {
        for statement in Self.statements(of: script) { try query(statement) }
    }

    /// Whether the connection has ended: closed here, or by the server or the network.
    var isLost: Bool { connection.isClosed }

    /// Closes the connection, once (later calls do nothing).
    func close() {
        let first = closeLock.withLock {
            defer { closed = true }
            return !closed
        }
        if first { try? connection.close().wait() }
    }

    /// Calls `handler` (on the connection's event loop) for every notification of
    /// `channel` from now on, while the connection lasts.
    func listen(_ channel: String, _ handler: @Sendable @escaping (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try query("LISTEN \(channel)")
    }

    // MARK: Errors

    private func statementError(_ error: any Error) -> PostgresCatalogError {
        let url = location.description
        guard let error = error as? PSQLError else { return .lost(url: url, detail: "\(error)") }
        if error.code == .server, let info = error.serverInfo {
            let message = info[.message] ?? "an error"
            // FATAL ends the session: its server shut down, or it sat idle in a transaction.
            if info[.severity] == "FATAL" { return .lost(url: url, detail: message) }
            let detail = info[.detail].map { " (\($0))" } ?? ""
            return .server(url: url, detail: "\(message)\(detail) [SQLSTATE \(info[.sqlState] ?? "?")]")
        }
        return .lost(url: url, detail: Self.describe(error))
    }

    static func connectionError(_ error: any Error, _ location: PostgresLocation, passwordGiven: Bool) -> PostgresCatalogError {
        let url = location.description
        guard let error = error as? PSQLError else { return .unreachable(url: url, detail: "\(error)") }
        if error.code == .server, let info = error.serverInfo {
            let message = info[.message] ?? "refused"
            switch info[.sqlState] {
            case "28P01", "28000": return .loginRefused(url: url, detail: message)
            case "3D000": return .noDatabase(url: url, database: location.database)
            default: return .unreachable(url: url, detail: "\(message) [SQLSTATE \(info[.sqlState] ?? "?")]")
            }
        }
        if error.code == .authMechanismRequiresPassword {
            return .loginRefused(url: url, detail: passwordGiven ? "the password was not accepted" : "it asks for a password and none was given")
        }
        if error.code == .unsupportedAuthMechanism || error.code == .saslError {
            return .loginRefused(url: url, detail: describe(error))
        }
        return .unreachable(url: url, detail: describe(error))
    }

    /// What a connection error says, without postgres-nio's internal names.
    private static func describe(_ error: PSQLError) -> String {
        if let underlying = error.underlying {
            let text = "\(underlying)"
            if text.contains("connectTimeout") || text.contains("TimeAmount") { return "no answer within \(connectTimeout) s" }
            if let range = text.range(of: "reason: ") { return String(text[range.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: ")")) }
            return text
        }
        return "\(error.code)"
    }

    // MARK: Scripts

    /// The statements of a script, split at the semicolons outside quotes ('…', "…",
    /// $tag$…$tag$) and comments (-- and /* */), without empty ones.
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        let characters = Array(script.unicodeScalars)
        var current = String.UnicodeScalarView()
        var index = 0
        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty, !text.split(whereSeparator: \.isNewline).allSatisfy({ $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }) {
                statements.append(text)
            }
            current = String.UnicodeScalarView()
        }
        func copy(until end: [Unicode.Scalar]) {
            // Copies from `index` through the next occurrence of `end` (or the script's end).
            while index < characters.count {
                if index + end.count <= characters.count, Array(characters[index..<index + end.count]) == end {
                    current.append(contentsOf: end)
                    index += end.count
                    return
                }
                current.append(characters[index])
                index += 1
            }
        }
        while index < characters.count {
            let c = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch c {
            case "'", "\"":
                current.append(c)
                index += 1
                copy(until: [c])  // a doubled quote closes and reopens: the same text results
            case "-" where next == "-":
                copy(until: ["\n"])
            case "/" where next == "*":
                current.append(contentsOf: ["/", "*"])
                index += 2
                copy(until: ["*", "/"])
            case "$":
                // A dollar quote's tag: $$ or $name$ (a letter or underscore first).
                var end = index + 1
                while end < characters.count, characters[end] == "_" || CharacterSet.alphanumerics.contains(characters[end]) { end += 1 }
                let isTag = end < characters.count && characters[end] == "$"
                    && (end == index + 1 || !CharacterSet.decimalDigits.contains(characters[index + 1]))
                if isTag {
                    let tag = Array(characters[index...end])
                    current.append(contentsOf: tag)
                    index = end + 1
                    copy(until: tag)
                } else {
                    current.append(c)
                    index += 1
                }
            case ";":
                flush()
                index += 1
            default:
                current.append(c)
                index += 1
            }
        }
        flush()
        return statements
    }
}
