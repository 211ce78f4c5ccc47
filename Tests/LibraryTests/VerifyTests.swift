import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// `verify`: a sound library is found sound; each way a library goes wrong is found,
/// named, and told apart.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct VerifyTests {
    @Test func eachWayALibraryGoesWrongIsFoundAndNamed() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = ["orientation/Landscape_1.jpg", "apple-portrait-heic/pug.heic", "apple-misc/IMG_4120.JPG", "apple-misc/IMG_4120.AAE"]
        _ = try Importer(library: library).run(paths: files.map { Media.path($0) })
        // Aux PNGs not made yet are not files to check: a library just imported is sound.
        #expect(try library.verify(quick: false).sound)
        // pug's, made as on first use, are.
        try library.makeAuxiliaryPNGs(of: try library.findAsset(Media.path(files[1])))
        for quick in [false, true] {
            let report = try library.verify(quick: quick)
            #expect(report.sound && report.files >= 8, "\(report.problems)")
            #expect(report.bytesRead == (quick ? 0 : try Self.bytesNamed(library)))
        }
        let landscape = try library.describe([try library.findAsset(Media.path(files[0]))])[0]
        let pug = try library.describe([try library.findAsset(Media.path(files[1]))])[0]
        // A byte of an original changed in place, its time set back: only hashing sees it.
        let original = try #require(landscape.primaryOriginal?.path)
        let time = try #require(try FileManager.default.attributesOfItem(atPath: original)[.modificationDate] as? Date)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original)
        let handle = try #require(FileHandle(forUpdatingAtPath: original))
        try handle.seek(toOffset: 1000)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: original)
        // An aux image gone, a file no one names, a path out of the library, one listed for removal.
        let aux = try #require(pug.aux.compactMap(\.path).first)
        try FileManager.default.removeItem(atPath: aux)
        let stray = library.absolute("originals/stray.jpg")
        try Data("x".utf8).write(to: stray)
        let queued = library.absolute("derived/thumbnails/queued.jpg")
        try Data("y".utf8).write(to: queued)
        try library.catalog.sqliteWrite { db in
            try db.execute(sql: "UPDATE resource SET path = '../outside.AAE' WHERE role = 'adjustmentSidecar'")
            try FileRemovalRecord.queue(["derived/thumbnails/queued.jpg"], db)
        }
        let full = try library.verify(quick: false)
        let kinds = Dictionary(grouping: full.problems, by: \.kind).mapValues { $0.map(\.path) }
        #expect(kinds[.damaged] == [original])
        #expect(kinds[.missing] == [aux])
        // The sidecar whose row points elsewhere is now a file no row names.
        let sidecar = try #require(try Self.sidecar(of: files[3], library))
        #expect(kinds[.unknown] == [sidecar, stray.path].sorted())
        #expect(kinds[.pendingRemoval] == [queued.path])
        #expect(kinds[.outside] == ["../outside.AAE"])
        #expect(full.problems.count == 6 && !full.sound)
        let damaged = try #require(full.problems.first { $0.kind == .damaged })
        #expect(damaged.asset == landscape.id && damaged.original && damaged.detail.contains("Landscape_1.jpg"))
        // Quick: the same, but for the byte it cannot see; a later write it does see.
        let quick = try library.verify(quick: true)
        #expect(Set(quick.problems.map(\.kind)) == [.missing, .unknown, .pendingRemoval, .outside])
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: original)
        let touched = try library.verify(quick: true)
        #expect(touched.problems.filter { $0.kind == .modified }.map(\.path) == [original])
    }

    /// Where the library keeps the sidecar imported from `relative`.
    static func sidecar(of relative: String, _ library: PhotoLibrary) throws -> String? {
        let name = URL(fileURLWithPath: relative).lastPathComponent
        let found = try FileManager.default.subpathsOfDirectory(atPath: library.absolute("originals").path).first { $0.hasSuffix("/" + name) }
        return found.map { library.absolute("originals/" + $0).path }
    }

    static func bytesNamed(_ library: PhotoLibrary) throws -> Int64 {
        try library.catalog.sqliteRead { db in
            try Int64.fetchOne(db, sql: "SELECT (SELECT sum(bytes) FROM resource) + (SELECT coalesce(sum(bytes), 0) FROM aux_image WHERE path IS NOT NULL)")!
        }
    }
}
