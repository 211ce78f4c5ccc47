import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import Library
import Synchronization
import TestSupport

/// A library of corpus files, imported once for each catalog backend and shared by the
/// gallery's tests that only read it; tests that edit make their own.
final class GalleryLibrary: Sendable {
    static let folders = ["apple-live-photo", "apple-portrait-heic", "orientation"]
    private static let cache = Mutex<[CatalogBackend: GalleryLibrary]>([:])

    let scratch: ScratchDirectory
    let library: PhotoLibrary

    static func shared(on backend: CatalogBackend = .sqlite) throws -> GalleryLibrary {
        try cache.withLock { cached in
            if let made = cached[backend] { return made }
            let made = try GalleryLibrary(folders: folders, on: backend)
            cached[backend] = made
            return made
        }
    }

    /// `leavingWorkToWorkers`: imported as `camlib import --no-wait` does, the thumbnails
    /// and proxies left as jobs for workers.
    init(folders: [String], leavingWorkToWorkers: Bool = false, on backend: CatalogBackend = .sqlite) throws {
        for folder in folders { _ = try Media.files(in: folder) }  // fail clearly when missing
        scratch = try ScratchDirectory.shared("camlib-gallery-\(UUID().uuidString.prefix(8))")
        library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL("gallery"))
        _ = try Importer(library: library, options: ImportOptions(queueDerivedWork: leavingWorkToWorkers)).run(paths: folders.map { Media.path($0) })
    }

    /// The asset holding a corpus file.
    func asset(_ relative: String) throws -> AssetDescription {
        try library.describe([try library.findAsset(Media.path(relative))])[0]
    }

    /// A camlib behind a script whose `display-worker` children die at once, as ones the
    /// kernel kills do (only the first, with `onlyTheFirst`), each leaving `mark` behind.
    func camlibWhoseDisplayWorkersDie(marking mark: String, onlyTheFirst: Bool) throws -> String {
        let wrapper = scratch.file("camlib-\(UUID().uuidString.prefix(8))")
        let condition = onlyTheFirst ? #" && [ ! -e '\#(mark)' ]"# : ""
        try """
            #!/bin/sh
            if [ "$1" = display-worker ]\(condition); then : > '\(mark)'; kill -9 $$; fi
            exec '\(Camlib.path)' "$@"

            """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        return wrapper
    }

    /// The gallery of this library, tested through its router (no socket).
    /// `workers`: with that many worker processes beside it, as `camlib serve` runs.
    func test<T: Sendable>(
        host: String = "127.0.0.1", token: String? = nil, workers: Int = 0, executable: String = Camlib.path,
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        var options = GalleryServer.Options()
        options.host = host
        options.token = token
        options.camlibExecutable = executable
        options.runWorkers = workers > 0
        options.workerProcesses = max(1, workers)
        let server = GalleryServer(library: library, options: options)
        let pool = server.startWorkers()
        defer { if let pool { GalleryServer.stop(pool) } }
        return try await server.application().test(.router, body)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(buffer: body)) }
    func object() throws -> [String: Any] { try json() as? [String: Any] ?? [:] }
}
