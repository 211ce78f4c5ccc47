import Foundation
import GRDB
import Synchronization
import TestSupport

@testable import Library

/// One library holding every non-malformed corpus file, imported once (in process) for
/// each catalog backend and shared by the tests that only read it.
final class CorpusLibrary: Sendable {
    static let folders = [
        "apple-live-photo", "apple-misc", "apple-portrait-heic", "apple-portrait-jpeg", "android-depth-motion", "orientation",
    ]
    private static let cache = Mutex<[CatalogBackend: CorpusLibrary]>([:])

    let scratch: ScratchDirectory
    let library: PhotoLibrary
    let report: ImportReport

    static func shared(on backend: CatalogBackend = .sqlite) throws -> CorpusLibrary {
        try cache.withLock { cached in
            if let made = cached[backend] { return made }
            let made = try CorpusLibrary(backend)
            cached[backend] = made
            return made
        }
    }

    private init(_ backend: CatalogBackend) throws {
        for folder in Self.folders { _ = try Media.files(in: folder) }  // fail clearly when missing
        scratch = try ScratchDirectory.shared("camlib-corpus-\(backend)")
        library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL())
        report = try Importer(library: library).run(paths: Self.folders.map { Media.path($0) })
    }

    /// The asset whose still or movie was imported from `relative` (a corpus path), its
    /// auxiliary images' PNGs made (as `aux extract` or the gallery would on first use).
    func asset(_ relative: String) throws -> AssetDescription {
        let id = try library.findAsset(Media.path(relative))
        try library.makeAuxiliaryPNGs(of: id)
        return try library.describe([id])[0]
    }

    /// Catalog metadata of the file imported from `relative`.
    func metadata(_ relative: String) throws -> Row {
        let url = URL(fileURLWithPath: Media.path(relative))
        return try library.catalog.read { db in
            try db.rows(
                """
                SELECT m.* FROM resource r JOIN metadata m ON m.resource_id = r.id
                WHERE r.source_dir = \(url.deletingLastPathComponent().path) AND r.original_name = \(url.lastPathComponent)
                """
            ).first?.row
        }!
    }
}
