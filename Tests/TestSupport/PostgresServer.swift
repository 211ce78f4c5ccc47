import Foundation

/// A private PostgreSQL cluster for tests, in a temporary folder: made by Debian's
/// `initdb` (as the `postgres` user when the tests run as root, which initdb refuses to
/// be), reached through a unix socket in that folder only (and 127.0.0.1 when asked),
/// with fsync off. Nothing outside the folder is touched; no test needs a server the
/// machine did not start itself.
///
/// ``shared`` is one cluster per test process. A watchdog process stops it and removes
/// its folder when the test process ends, however it ends.
public final class PostgresServer: @unchecked Sendable {
    // Immutable after init.
    public let folder: URL
    /// The folder holding the socket.
    public var socketFolder: String { folder.path }
    /// The TCP port on 127.0.0.1, when the cluster listens there.
    public let port: Int
    public let listensOnTCP: Bool
    private let bin: URL
    private var databases = 0
    private let lock = NSLock()

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case failed(String, ProcessResult)

        public var description: String {
            switch self {
            case .notInstalled:
                "PostgreSQL's server programs are not installed (/usr/lib/postgresql/NN/bin/initdb): ./setup.sh installs Debian's postgresql"
            case .failed(let step, let result):
                "\(step) failed (status \(result.status)): \(result.stderr)\(result.stdout)"
            }
        }
    }

    /// The newest installed server's programs, 15 or newer.
    static func binaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).filter { $0 >= 15 }.sorted()
        guard let newest = versions.last else { throw Failure.notInstalled }
        let bin = root.appendingPathComponent("\(newest)/bin")
        guard FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) else { throw Failure.notInstalled }
        return bin
    }

    nonisolated(unsafe) private static var sharedServer: PostgresServer?
    private static let sharedLock = NSLock()

    /// This test process's cluster, started on first use (about a second).
    public static func shared() throws -> PostgresServer {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let sharedServer { return sharedServer }
        let server = try PostgresServer(tcp: true)
        sharedServer = server
        return server
    }

    /// Starts a new cluster; `tcp`: on a free port of 127.0.0.1 as well as the socket.
    public init(tcp: Bool = false) throws {
        bin = try Self.binaries()
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("camlib-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        listensOnTCP = tcp
        port = tcp ? Self.freePort() : 5432
        let asRoot = getuid() == 0
        if asRoot { _ = try Self.run("/bin/chown", ["postgres:postgres", folder.path]) }
        let data = folder.appendingPathComponent("data").path
        try checked("initdb", try asPostgres(bin.appendingPathComponent("initdb").path, ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync"]))
        var options = "-F -k \(folder.path) -p \(port) -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        options += tcp ? " -c listen_addresses=127.0.0.1" : " -c listen_addresses=''"
        try checked("pg_ctl start", try asPostgres(bin.appendingPathComponent("pg_ctl").path, ["-D", data, "-o", options, "-w", "-t", "60", "-l", folder.appendingPathComponent("log").path, "start"]))
        // Stops the cluster and removes the folder once this process is gone.
        let stop = "\(bin.appendingPathComponent("pg_ctl").path) -D \(data) -m immediate stop"
        Self.whenThisProcessEnds("\(asRoot ? "runuser -u postgres -- " : "")\(stop) >/dev/null 2>&1; rm -rf \(folder.path)")
    }

    /// Runs the shell commands `script` once this test process has ended, however it
    /// ends: a watchdog of its own session, holding nothing of this process's.
    static func whenThisProcessEnds(_ script: String) {
        let watchdog = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; " + script
        let words: [String] = ["/usr/bin/setsid", "/bin/bash", "-c", closingOthers + watchdog]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        var pid: pid_t = 0
        _ = withFreshSignals { posix_spawn(&pid, "/usr/bin/setsid", &actions, $0, argv, environ) }
    }

    /// Calls `body` with spawn attributes that give the new process no blocked signals
    /// and every signal's default action. A test process blocks most signals on some
    /// threads, and a child inherits the mask: PgBouncer, which leaves it as it finds it,
    /// then never heard the SIGTERM that stops it.
    static func withFreshSignals<T>(_ body: (UnsafePointer<posix_spawnattr_t>) -> T) -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return body(&attributes)
    }

    deinit { stop() }

    /// Stops the cluster now and removes its folder.
    public func stop() {
        let data = folder.appendingPathComponent("data").path
        _ = try? asPostgres(bin.appendingPathComponent("pg_ctl").path, ["-D", data, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// A new, empty database of this cluster: its name (``url(database:user:)`` reaches it).
    public func createDatabase(_ label: String = "camlib") throws -> String {
        let name: String = lock.withLock {
            databases += 1
            return "\(label)_\(databases)"
        }
        try checked("createdb", try psql("postgres", "CREATE DATABASE \(name)"))
        return name
    }

    /// The URL of `database` over the unix socket.
    public func url(database: String, user: String = "postgres") -> String {
        "postgresql://\(user)@/\(database)?host=\(socketFolder)&port=\(port)"
    }

    /// The URL of `database` over TCP on 127.0.0.1.
    public func tcpURL(database: String, user: String = "postgres", password: String? = nil) -> String {
        "postgresql://\(user)\(password.map { ":\($0)" } ?? "")@127.0.0.1:\(port)/\(database)"
    }

    /// Runs SQL in `database` with psql, as the postgres superuser.
    public func psql(_ database: String, _ sql: String) throws -> ProcessResult {
        try Self.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketFolder, "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
    }

    /// Adds lines at the top of pg_hba.conf (the first matching line decides) and reloads.
    public func allow(_ lines: [String]) throws {
        let hba = folder.appendingPathComponent("data/pg_hba.conf")
        let old = try String(contentsOf: hba, encoding: .utf8)
        try (lines.joined(separator: "\n") + "\n" + old).write(to: hba, atomically: false, encoding: .utf8)
        try checked("reload", try psql("postgres", "SELECT pg_reload_conf()"))
    }

    private func checked(_ step: String, _ result: ProcessResult) throws {
        guard result.status == 0 else { throw Failure.failed(step, result) }
    }

    private func asPostgres(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        getuid() == 0 ? try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments) : try Self.run(program, arguments)
    }

    /// Runs a program and waits for it, its output in a file rather than a pipe: the
    /// server that `pg_ctl start` leaves running must not hold anything of this process's.
    /// (posix_spawn and waitpid, not Foundation's Process, which was seen never to reap a
    /// `runuser` whose grandchild went on running.)
    static func run(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        let output = NSTemporaryDirectory() + "camlib-pg-output-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let words: [String] = ["/bin/bash", "-c", closingOthers + #"exec "$0" "$@""#, program] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = withFreshSignals { posix_spawn(&pid, "/bin/bash", &actions, $0, argv, environ) }
        guard spawned == 0 else { throw Failure.failed("starting \(program)", ProcessResult(status: spawned, stdout: "", stderr: String(cString: strerror(spawned)), signaled: false)) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let signaled = (status & 0x7f) != 0
        return ProcessResult(status: signaled ? -1 : (status >> 8) & 0xff, stdout: text, stderr: "", signaled: signaled)
    }

    /// The start of a `bash -c` script that closes every descriptor but 0, 1 and 2 (dash
    /// would close only those up to 9). A process that outlives its start (a watchdog,
    /// the server `pg_ctl start` leaves, PgBouncer) must not keep what it inherited: a
    /// pipe that another test's thread has open for a program it runs stays open while
    /// any holder lives, and that thread waits for its end for ever.
    static let closingOthers = #"for fd in /proc/self/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#

    /// A port of 127.0.0.1 that nothing listens on now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

