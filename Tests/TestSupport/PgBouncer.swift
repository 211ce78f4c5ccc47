import Foundation

/// Debian's PgBouncer in front of a test cluster, as the sharing guide sets it up: session
/// pooling, a unix socket in a folder of its own, nothing on TCP. It runs as the
/// `postgres` user (PgBouncer refuses root) and trusts the users it is told of. A watchdog
/// stops it when the test process ends, however it ends.
public final class PgBouncer: @unchecked Sendable {
    // Immutable after init.
    public let folder: URL
    public let port = 6432
    private let server: PostgresServer

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case failed(String)

        public var description: String {
            switch self {
            case .notInstalled: "PgBouncer is not installed (/usr/sbin/pgbouncer): ./setup.sh installs Debian's pgbouncer"
            case .failed(let detail): "PgBouncer did not start: \(detail)"
            }
        }
    }

    /// Starts PgBouncer for every database of `server`, for `users` (trusted, as the
    /// cluster trusts its socket's users).
    public init(for server: PostgresServer, users: [String] = ["postgres"]) throws {
        let program = "/usr/sbin/pgbouncer"
        guard FileManager.default.isExecutableFile(atPath: program) else { throw Failure.notInstalled }
        self.server = server
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("camlib-pgbouncer-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = """
            [databases]
            * = host=\(server.socketFolder) port=\(server.port)
            [pgbouncer]
            listen_addr =
            listen_port = \(port)
            unix_socket_dir = \(folder.path)
            auth_type = trust
            auth_file = \(folder.path)/users.txt
            pool_mode = session
            logfile = \(folder.path)/log
            pidfile = \(folder.path)/pid
            """
        try config.write(to: folder.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        try users.map { "\"\($0)\" \"\"" }.joined(separator: "\n").write(to: folder.appendingPathComponent("users.txt"), atomically: true, encoding: .utf8)
        let asRoot = getuid() == 0
        if asRoot { _ = try PostgresServer.run("/bin/chown", ["-R", "postgres:postgres", folder.path]) }
        let ini = folder.appendingPathComponent("pgbouncer.ini").path
        let started = asRoot ? try PostgresServer.run("/usr/sbin/runuser", ["-u", "postgres", "--", program, "-d", ini]) : try PostgresServer.run(program, ["-d", ini])
        let socket = folder.appendingPathComponent(".s.PGSQL.\(port)").path
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline else {
                let log = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
                throw Failure.failed("status \(started.status): \(started.stdout)\(log)")
            }
            usleep(20_000)
        }
        // Stops PgBouncer and removes the folder once this process is gone.
        let pidFile = folder.appendingPathComponent("pid").path
        PostgresServer.whenThisProcessEnds("kill $(cat \(pidFile)) 2>/dev/null; sleep 1; rm -rf \(folder.path)")
    }

    deinit { stop() }

    /// Stops PgBouncer now and removes its folder.
    public func stop() {
        if let text = try? String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGTERM)
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The URL of `database` through PgBouncer's socket.
    public func url(database: String, user: String = "postgres") -> String {
        "postgresql://\(user)@/\(database)?host=\(folder.path)&port=\(port)"
    }
}
