import Codecs
import Foundation
import Hummingbird
import Library
import Logging
import NIOCore

/// `camlib serve`: the library in a browser. One HTTP server (Hummingbird) in the camlib
/// process: the page, a JSON API under /api/ that the page uses, and the library's files
/// by asset and resource id, never by a path from the request.
public struct GalleryServer: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        /// 0: any free port (the URL printed says which).
        public var port = 8765
        /// Needed by every request when set; required off loopback.
        public var token: String?
        /// The camlib executable that edits started from the page, and the browsers' copies
        /// of files, are made in (a child process each, so a file that crashes a decoder
        /// cannot take the gallery down): this program, by default.
        public var camlibExecutable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        /// Workers beside the server (`camlib worker`'s, in child processes) run the
        /// library's jobs: the page's edits, thumbnails, proxies. Off: other workers do.
        public var runWorkers = true
        /// Workers at once: one per core.
        public var workerProcesses = Cores.usable
        /// The largest file the page may upload.
        public var maxUploadBytes: Int64 = 16 << 30
        /// The map's background: a tile server's URL with {z}, {x} and {y} (the browser
        /// fetches the tiles, and the page lets it reach this server's origin only); nil
        /// for none (markers on a plain background).
        public var mapTiles: String? = MapSettings.openStreetMap
        /// Whose map the tiles are, shown in its corner.
        public var mapAttribution = MapSettings.openStreetMapAttribution
        public init() {}
    }

    let library: PhotoLibrary
    let options: Options
    let uploads: Uploads

    public init(library: PhotoLibrary, options: Options) {
        self.library = library
        self.options = options
        uploads = Uploads(library: library, maxFileSize: options.maxUploadBytes, executable: options.camlibExecutable)
    }

    /// Serves until SIGINT or SIGTERM, then finishes the requests under way and returns.
    /// `ready` hears the URL to open (with the token when one is needed) once listening.
    public func run(ready: @escaping @Sendable (URL) -> Void) async throws {
        let workers = startWorkers()
        defer { if let workers { Self.stop(workers) } }
        // Uploads abandoned for a day go, at start and every hour.
        let store = uploads.store
        let sweeper = Task.detached {
            while !Task.isCancelled {
                store.sweep()
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        defer { sweeper.cancel() }
        do {
            try await application(ready: ready).runService()
        } catch let error as IOError {
            throw GalleryError.cannotListen(host: options.host, port: options.port, errno: error.errnoCode)
        }
    }

    /// The workers that run the library's jobs while the gallery serves, unless they are
    /// off or the library cannot be changed.
    public func startWorkers(events: @escaping @Sendable (WorkerPool.Event) -> Void = { _ in }) -> WorkerPool? {
        guard options.runWorkers, !library.isReadOnly else { return nil }
        let pool = WorkerPool(library: library, executable: options.camlibExecutable, options: .init(processes: options.workerProcesses))
        pool.start(events: events)
        return pool
    }

    /// Seconds the workers get to finish the jobs they run when the gallery stops; then
    /// they are killed, and their jobs are taken over when a worker next runs.
    static let workersGrace: TimeInterval = 5

    public static func stop(_ workers: WorkerPool) {
        workers.stop()
        let waited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? workers.wait()
            waited.signal()
        }
        if waited.wait(timeout: .now() + workersGrace) == .timedOut {
            workers.stop()
            waited.wait()
        }
    }

    /// A connection that sends nothing for this long, before its request's head is whole
    /// or between requests, is closed (a client trickling a header a byte at a time held
    /// its connection forever). A response being written is never cut.
    static let idleSeconds = 15

    /// The server, not yet running: what `run` runs, and what tests drive without a socket.
    public func application(ready: @escaping @Sendable (URL) -> Void = { _ in }) -> some ApplicationProtocol {
        let policy = AccessPolicy(token: options.token, host: options.host)
        let router = Router()
        router.add(middleware: AccessMiddleware(policy: policy))
        let jobs = EditJobs(library: library)
        let workers = DisplayWorkers(executable: options.camlibExecutable, libraryRoot: library.root.path)
        let map = MapSettings(tiles: options.mapTiles, attribution: options.mapAttribution)
        GalleryAPI(
            library: library, jobs: jobs, workers: workers, previews: EditPreviewer(library: library), uploads: uploads, mapPoints: MapPoints(library: library), map: map)
            .addRoutes(to: router)
        WebPage.addRoutes(to: router, map: map)
        var logger = Logger(label: "camlib.serve")
        logger.logLevel = ProcessInfo.processInfo.environment["CAMLIB_SERVE_LOG"] == "1" ? .info : .warning
        let host = options.host, token = options.token
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(Self.idleSeconds)))),
            configuration: .init(address: .hostname(host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shownHost = host.contains(":") ? "[\(host)]" : host
                var text = "http://\(shownHost):\(port)/"
                if let token { text += "?token=\(token)" }
                ready(URL(string: text)!)
            },
            logger: logger)
    }
}

/// Why the gallery could not serve.
public enum GalleryError: Error, CustomStringConvertible {
    case cannotListen(host: String, port: Int, errno: Int32)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, EADDRINUSE):
            "port \(port) on \(host) is in use (another camlib serve?): choose another with --port, or --port 0 for any free one"
        case .cannotListen(let host, _, EADDRNOTAVAIL):
            "\(host) is not an address of this machine"
        case .cannotListen(let host, let port, let code):
            "cannot listen on \(host):\(port): \(String(cString: strerror(code)))"
        }
    }
}
