import ArgumentParser
import Foundation
import Gallery
import Library
import Synchronization

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Look at the library in a web browser: timeline, Live Photos, depth and mattes, edits.",
        discussion: Help.reflow(
            """
            Serves a web gallery of the library until Ctrl-C (or SIGTERM), then stops
            cleanly. It prints the URL to open. On 127.0.0.1 (the default) only this
            machine can reach it. On any other address, say --host 0.0.0.0 to look from a
            phone on the same network, every request needs a token: --token, or one made
            up and printed once, in the URL to open.

            Workers run beside it, one per core, each in a process of its own: the edits
            made in the page, and the library's other jobs (thumbnails, browsers' copies of
            movies) that imports left (`camlib jobs`). --no-worker leaves them to `camlib
            worker` processes of your own, on this machine.

            Photos and movies dropped on the page, or chosen with its Upload button, are
            sent in pieces that resume after a dropped connection (the tus protocol, at
            /api/uploads) and imported as `camlib import` imports them. Until a file is
            whole it waits in the library's tmp/uploads/; one abandoned for a day is removed.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on (0: any free one).", valueName: "port"))
    var port = 8765

    @Option(help: ArgumentHelp("A secret every request must carry (made up when listening beyond this machine).", valueName: "token"))
    var token: String?

    @Option(
        name: .customLong("max-upload"),
        help: ArgumentHelp("The largest file the page may upload, in bytes or with K, M, G or T (1024s).", valueName: "size"))
    var maxUpload = "16G"

    @Option(
        name: .customLong("map-tiles"),
        help: ArgumentHelp(
            "The map's background: a tile server's URL with {z}, {x} and {y}, or none.",
            discussion: "OpenStreetMap's by default (the browser fetches them; camlib does not). none draws the map's photos on a plain background, for a gallery without the internet.",
            valueName: "url"))
    var mapTiles = GalleryServer.Options().mapTiles ?? "none"

    @Option(name: .customLong("map-attribution"), help: ArgumentHelp("Whose map the tiles are, shown in its corner.", valueName: "text"))
    var mapAttribution: String?

    @Flag(help: "Open the gallery in the default browser (xdg-open).")
    var open = false

    @Flag(name: .customLong("no-worker"), help: "Run no workers beside the gallery; leave its jobs to camlib worker.")
    var noWorker = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): use 0 to 65535") }
        if let token, token.count < 16 || !token.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--token: use at least 16 letters, digits, '-' or '_'")
        }
        guard Self.bytes(maxUpload) != nil else { throw ValidationError("--max-upload \(maxUpload): give a size such as 500M or 16G") }
        if mapTiles != "none", !MapSettings.isTileURL(mapTiles) {
            throw ValidationError("--map-tiles \(mapTiles): give an http(s) URL with {z}, {x} and {y}, or none")
        }
    }

    /// "16G" → 16 GiB; a plain number is bytes.
    static func bytes(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            scale = unit
            digits = digits.dropLast()
        }
        guard let number = Double(digits), number > 0, number * Double(scale) < 9e18 else { return nil }
        return Int64(number * Double(scale))
    }

    func run() throws {
        // Edits from the browser write to the library, so it is opened for writing when
        // it can be; a library on read-only storage is shown all the same.
        let location = libraryOptions.location
        let library: PhotoLibrary
        do {
            library = try LibraryOptions.open(location, .write)
        } catch LibraryError.readOnly {
            library = try LibraryOptions.open(location, .read)
            Terminal.error("camlib serve: the library is read-only: it can be looked at, not edited")
        }
        var options = GalleryServer.Options()
        options.host = host
        options.port = port
        options.token = token ?? (AccessPolicy.isLoopback(host) ? nil : AccessPolicy.newToken())
        options.runWorkers = !noWorker
        options.maxUploadBytes = Self.bytes(maxUpload) ?? options.maxUploadBytes
        options.mapTiles = mapTiles == "none" ? nil : mapTiles
        if let mapAttribution {
            options.mapAttribution = mapAttribution
        } else if options.mapTiles != MapSettings.openStreetMap {
            options.mapAttribution = ""
        }
        let server = GalleryServer(library: library, options: options)
        let openBrowser = open
        let failure = Mutex<(any Error)?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task {
            do {
                try await server.run { url in
                    // Unbuffered: a script waiting for the URL reads it at once.
                    StandardOutput.write("camlib serve: \(url.absoluteString)\nServing \(location.path); Ctrl-C stops.\n")
                    if openBrowser { Self.openInBrowser(url) }
                }
            } catch {
                failure.withLock { $0 = error }
            }
            finished.signal()
        }
        finished.wait()
        if let error = failure.withLock({ $0 }) {
            Terminal.error("camlib serve: \(error)")
            throw ExitCode.failure
        }
    }

    static func openInBrowser(_ url: URL) {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard path.split(separator: ":").contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/xdg-open") }) else {
            Terminal.error("camlib serve: --open needs xdg-open (Debian's xdg-utils); open the URL above yourself")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            Terminal.error("camlib serve: cannot open a browser (\(error)); open the URL above")
        }
    }
}
