import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// A catalog path or name that leads out of the library, or a file whose bytes are not
/// the recorded ones, is refused, never followed or handed on.
@Suite struct ConfinementTests {
    @Test(arguments: [
        ("originals/2025/05/IMG_0102.HEIC", true), ("derived/aux/ab/abc/depth.png", true), ("a", true), ("originals/x..y/...", true),
        ("../etc/hostname", false), ("/etc/hostname", false), ("originals/../../x", false), ("originals//x", false), ("./x", false),
        ("originals/.", false), ("originals/..", false), ("", false), ("originals/", false), ("..", false),
    ])
    func aPathIsInsideTheLibraryOnlyWhenEveryPartIsAName(path: String, inside: Bool) {
        #expect(LibraryLayout.isConfined(path) == inside)
        #expect((LibraryLayout(root: URL(fileURLWithPath: "/lib")).confined(path) != nil) == inside)
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage))
    func exportRefusesPathsOutOfTheLibraryNamesThatLeaveItsFolderAndDamagedBytes() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = ["apple-misc/IMG_4120.JPG", "apple-misc/IMG_4120.AAE", "apple-misc/IMG_E4120.JPG", "orientation/Landscape_1.jpg"]
        _ = try Importer(library: library).run(paths: files.map { Media.path($0) })
        let apple = try library.findAsset(Media.path(files[0])), landscape = try library.findAsset(Media.path(files[3]))
        func export(_ id: Int64, _ folder: String) throws -> [String] {
            let out = scratch.url.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            guard let asset = try library.describe([id]).first else { return [] }
            return try Exporter.export(asset, from: library, to: out, originalOnly: false)
        }
        // A sidecar's name that would leave the export folder: written inside it, by its name.
        try library.catalog.sqliteWrite { db in try db.execute(sql: "UPDATE resource SET original_name = '../../evil.AAE' WHERE role = 'adjustmentSidecar'") }
        let written = try export(apple, "named")
        #expect(written.contains(scratch.url.appendingPathComponent("named/evil.AAE").path), "\(written)")
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("evil.AAE").path))
        // A path out of the library: refused by every reader of the asset.
        for outside in ["../../../../../../etc/hostname", "/etc/hostname"] {
            try library.catalog.sqliteWrite { db in try db.execute(sql: "UPDATE resource SET path = ? WHERE role = 'adjustmentSidecar'", arguments: [outside]) }
            #expect(throws: LibraryError.outsideLibrary(asset: apple, path: outside)) { try library.describe([apple]) }
            #expect(throws: LibraryError.outsideLibrary(asset: apple, path: outside)) { try export(apple, "outside") }
            // A listing that holds it is refused too, naming it.
            #expect(throws: LibraryError.outsideLibrary(asset: apple, path: outside)) { try library.describe(library.assetIDs(matching: AssetQuery())) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.appendingPathComponent("outside").path).isEmpty)
        // An original whose bytes changed: not exported, and nothing of the asset is written.
        let original = try #require(try library.describe([landscape]).first?.primaryOriginal?.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original)
        let handle = try #require(FileHandle(forUpdatingAtPath: original))
        try handle.seek(toOffset: 500)
        try handle.write(contentsOf: Data([0x00, 0x01, 0x02]))
        try handle.close()
        #expect {
            try export(landscape, "damaged")
        } throws: { error in
            "\(error)".contains("asset \(landscape)") && "\(error)".contains("not the ones recorded")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.appendingPathComponent("damaged").path).isEmpty)
    }
}
