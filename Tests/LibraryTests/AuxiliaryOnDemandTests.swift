import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// Auxiliary images' PNGs made when first asked for, not on import.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxiliaryOnDemandTests {
    static let files = [
        "apple-portrait-heic/pug.heic", "apple-portrait-jpeg/jpeg_depth_data.jpg", "android-depth-motion/xmp depth map.jpg",
        "apple-live-photo/IMG_3582.HEIC",
    ]

    static func rows(_ library: PhotoLibrary) throws -> [Row] {
        try library.catalog.sqliteRead { db in try Row.fetchAll(db, sql: "SELECT id, asset_id, source, path, sha256, bytes FROM aux_image ORDER BY id") }
    }

    @Test func importMakesNoPNGAndAskingMakesTheOneImportUsedToMake() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: Self.files.map { Media.path($0) })
        #expect(report.errors.isEmpty)
        let rows = try Self.rows(library)
        #expect(rows.count >= 8)
        // Facts and a place for each, no file and no hash yet.
        #expect(rows.allSatisfy { ($0["path"] as String?) != nil && ($0["sha256"] as String?) == nil })
        #expect(!FileManager.default.fileExists(atPath: library.layout.derived.appendingPathComponent("aux").path))

        for file in Self.files {
            let asset = try library.findAsset(Media.path(file))
            // What import made before: every image decoded and written as PNG, named after
            // the file (LooseFileAuxiliaryImages runs that same code on a loose file).
            let before = try LooseFileAuxiliaryImages.extract(
                path: Media.path(file), types: nil, to: try scratch.subdirectory("before-\(asset)"), overwrite: false)
            let described = try library.describe([asset])[0].aux
            #expect(described.count == before.count, "\(file)")
            for (aux, old) in zip(described, before) {
                let made = try library.auxiliaryPNG(asset: asset, source: aux.source)
                #expect(made.path == aux.path, "\(file) \(aux.source)")
                let oldPath = try #require(old.path, "\(file) \(aux.source): \(old.problem ?? "")")
                #expect(try Data(contentsOf: made) == (try Data(contentsOf: URL(fileURLWithPath: oldPath))), "\(file) \(aux.source)")
            }
        }
        // Each made once, its bytes recorded, and verify now checks them.
        #expect(try Self.rows(library).allSatisfy { ($0["sha256"] as String?) != nil && ($0["bytes"] as Int64?) != nil })
        let verified = try library.verify(quick: false)
        #expect(verified.sound && verified.files >= rows.count, "\(verified.problems)")
    }

    @Test func deletedPNGsComeBackWhenAskedFor() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        _ = try Importer(library: library).run(paths: [Media.path(Self.files[0])])
        let asset = try library.findAsset(Media.path(Self.files[0]))
        let first = try library.extractAuxiliaryImages(of: asset, types: nil, to: try scratch.subdirectory("first"), overwrite: false)
        #expect(!first.isEmpty && first.allSatisfy { $0.problem == nil })
        let recorded = try Self.rows(library).map { $0["sha256"] as String? }
        try FileManager.default.removeItem(at: library.layout.derived.appendingPathComponent("aux"))

        // Asked again: made again, the same bytes, and nothing to report.
        let second = try library.extractAuxiliaryImages(of: asset, types: nil, to: try scratch.subdirectory("second"), overwrite: false)
        #expect(second.map(\.problem) == first.map(\.problem))
        for (a, b) in zip(first, second) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(a.path))) == (try Data(contentsOf: URL(fileURLWithPath: try #require(b.path)))))
        }
        #expect(try Self.rows(library).map { $0["sha256"] as String? } == recorded)
        #expect(try library.verify(quick: false).sound)
        // The gallery's overlay too.
        try FileManager.default.removeItem(at: library.layout.derived.appendingPathComponent("aux"))
        let still = try #require(try library.describe([asset])[0].resources.first { $0.role == .photo })
        let stillID = try library.catalog.sqliteRead { db in try Int64.fetchOne(db, sql: "SELECT id FROM resource WHERE path = ?", arguments: [library.relative(URL(fileURLWithPath: still.path))]) }
        let shown = try library.auxiliaryFile(asset: asset, resource: try #require(stillID), type: .disparity)
        #expect(FileManager.default.fileExists(atPath: shown.url.path) && shown.mime == "image/png")
    }
}
