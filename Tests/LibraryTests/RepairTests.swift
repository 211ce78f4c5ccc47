import Filters
import Foundation
import GRDB
import Testing
import TestSupport

@testable import Library

/// `repair`: deleting derived/ loses nothing, and what a killed command leaves is cleared.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct RepairTests {
    @Test func deletingDerivedLosesNothing() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = [
            "apple-portrait-heic/pug.heic", "android-depth-motion/motion_photo.jpeg", "orientation/Landscape_1.jpg",
            "apple-live-photo/IMG_4394.HEIC", "apple-live-photo/IMG_4394.mov", "apple-portrait-jpeg/jpeg_depth_data.jpg",
        ]
        let imported = try Importer(library: library).run(paths: files.map { Media.path($0) })
        #expect(imported.errors.isEmpty)
        // Aux images' PNGs are made when first asked for: asked for here, so that they are
        // among what is deleted and made again.
        let auxIDs = try library.catalog.sqliteRead { db in try Int64.fetchAll(db, sql: "SELECT id FROM aux_image WHERE path IS NOT NULL") }
        for id in auxIDs { _ = try library.auxiliaryPNG(id) }
        let recorded = try Self.derivedFiles(library)
        #expect(recorded.count >= 10 && recorded.keys.contains { $0.hasPrefix("derived/motion/") } && recorded.keys.contains { $0.hasPrefix("derived/aux/") })
        try FileManager.default.removeItem(at: library.layout.derived)
        #expect(try library.verify(quick: true).problems.count == recorded.count)

        let dry = try library.repair(dryRun: true)
        #expect(dry.actions.filter { $0.kind == .rebuilt }.count == recorded.count && !FileManager.default.fileExists(atPath: library.layout.derived.path))
        let report = try library.repair()
        #expect(report.actions.map(\.kind) == Array(repeating: .rebuilt, count: recorded.count), "\(report.actions)")
        // Every file back, with the bytes it had: thumbnails, PNGs and cut-out movies are
        // made the same way every time.
        #expect(try Self.derivedFiles(library) == recorded)
        for path in recorded.keys { #expect(try FileReading.sha256(of: library.absolute(path).path) == recorded[path], "\(path)") }
        #expect(try library.verify(quick: false).sound)
        #expect(try library.repair().actions.isEmpty, "a sound library has nothing to repair")
    }

    @Test func deletingDerivedLosesNoEditEither() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = [
            "apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg", "apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE_3.mov",
            "android-depth-motion/motion_photo.jpeg", "orientation/Landscape_1.jpg",
        ]
        _ = try Importer(library: library).run(paths: files.map { Media.path($0) })
        let ids = try [files[0], files[2], files[3]].map { try library.findAsset(Media.path($0)) }
        for id in ids { _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false) }
        let recorded = try Self.derivedFiles(library)
        let renders = recorded.keys.filter { $0.hasPrefix("derived/renders/") }
        #expect(renders.count == 4, "a Live Photo's still and movie, a Motion Photo's still, a photo: \(renders)")
        let before = try library.describe(ids)

        try FileManager.default.removeItem(at: library.layout.derived)
        let dry = try library.repair(dryRun: true)
        #expect(dry.actions.count == recorded.count && dry.actions.allSatisfy { $0.kind == .rebuilt }, "\(dry.actions.filter { $0.kind != .rebuilt })")
        let report = try library.repair()
        #expect(report.actions.allSatisfy { $0.kind == .rebuilt }, "\(report.actions.filter { $0.kind != .rebuilt })")
        #expect(report.actions.count == recorded.count)
        #expect(try library.verify(quick: false).sound)
        // Each render is the edit again: the same recipe on the same original, shown the
        // same (the encoders may place bits differently; the catalog records what they made).
        let after = try library.describe(ids)
        for (old, new) in zip(before, after) {
            #expect(old.adjustments.map(\.data) == new.adjustments.map(\.data))
            #expect(old.resources.map(\.role) == new.resources.map(\.role))
        }
        for path in renders {
            let url = library.absolute(path)
            #expect(FileManager.default.fileExists(atPath: url.path), "\(path)")
        }
        let changed = try Self.derivedFiles(library).filter { recorded[$0.key] != $0.value }.keys.sorted()
        #expect(changed.allSatisfy { $0.hasPrefix("derived/renders/") || $0.hasPrefix("derived/thumbnails/") }, "\(changed)")
        #expect(try library.repair().actions.isEmpty, "a sound library has nothing to repair")
    }

    @Test func aBrowsersCopyCutShortIsFoundAndMadeAgain() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let movie = Media.path("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE_3.mov")
        _ = try Importer(library: library).run(paths: [Media.path("orientation/Landscape_1.jpg"), movie])
        let asset = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        let still = try #require(try library.media(of: [asset])[asset]?.still)
        let preview = try library.displayFile(asset: asset, resource: still, kind: .preview).url
        let whole = try Data(contentsOf: preview)
        #expect(try library.verify(quick: true).sound)

        // Cut short (a disk that filled, a copy that stopped): verify says so, repair mends it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: preview.path)
        try whole.prefix(whole.count / 2).write(to: preview)
        let report = try library.verify(quick: true)
        #expect(report.problems.map(\.kind) == [.damaged] && report.problems.first?.role == "preview", "\(report.problems)")
        #expect(try library.repair(dryRun: true).actions.map(\.kind) == [.rebuilt])
        #expect(try Data(contentsOf: preview).count == whole.count / 2, "a dry run changes nothing")
        let repaired = try library.repair()
        #expect(repaired.actions.map(\.kind) == [.rebuilt], "\(repaired.actions)")
        #expect(try Data(contentsOf: preview) == whole, "made again as it was made")
        #expect(try library.verify(quick: true).sound)

        // A movie's structure: whole, its boxes add up; cut, they do not.
        #expect(PhotoLibrary.structuralProblem(URL(fileURLWithPath: movie), movie: true) == nil)
        let cut = scratch.url.appendingPathComponent("cut.mov")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: movie))
        try bytes.prefix(bytes.count - 1000).write(to: cut)
        #expect(PhotoLibrary.structuralProblem(cut, movie: true) != nil)
    }

    @Test func strayFilesAreClearedAndOriginalsMovedAsideNotDeleted() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        _ = try Importer(library: library).run(paths: [Media.path("orientation/Landscape_1.jpg")])
        // What an import killed after publishing, and an edit killed as its render landed, leave.
        let original = library.absolute("originals/2020/01/IMG_9999.HEIC")
        try FileManager.default.createDirectory(at: original.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("an original".utf8).write(to: original)
        let render = library.absolute("derived/renders/ab/" + String(repeating: "ab", count: 32) + ".jpg")
        try FileManager.default.createDirectory(at: render.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("a render".utf8).write(to: render)
        // A damaged thumbnail, made again.
        let thumbnail = try #require(try Self.derivedFiles(library).keys.first { $0.hasPrefix("derived/thumbnails/") })
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: library.absolute(thumbnail).path)
        try Data("not a jpeg".utf8).write(to: library.absolute(thumbnail))

        let report = try library.repair()
        #expect(Set(report.actions.map(\.kind)) == [.rebuilt, .removed, .movedAside], "\(report.actions)")
        #expect(!FileManager.default.fileExists(atPath: render.path) && !FileManager.default.fileExists(atPath: original.path))
        let aside = try #require(report.lostAndFound)
        #expect(try String(contentsOfFile: aside + "/originals/2020/01/IMG_9999.HEIC", encoding: .utf8) == "an original")
        let verified = try library.verify(quick: false)
        #expect(verified.sound, "\(verified.problems)")
    }

    /// What takes decoding is left to jobs: one `repair` job per asset, which any worker
    /// runs. Until one has, the report says what is queued, and nothing is made; asking
    /// again queues no second job for the same asset.
    @Test func aRepairLeftToWorkersIsQueuedAsOneJobPerAsset() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = ["orientation/Landscape_1.jpg", "android-depth-motion/motion_photo.jpeg", "apple-portrait-heic/pug.heic"]
        _ = try Importer(library: library).run(paths: files.map { Media.path($0) })
        let assets = try Set(files.map { try library.findAsset(Media.path($0)) })
        let recorded = try Self.derivedFiles(library)
        let thumbnails = recorded.keys.filter { $0.hasPrefix("derived/thumbnails/") }
        #expect(thumbnails.count >= 3)
        try FileManager.default.removeItem(at: library.layout.derived.appendingPathComponent("thumbnails"))

        let queued = try library.repair(runJobs: false)
        #expect(queued.jobBatch != nil)
        #expect(queued.actions.allSatisfy { $0.kind == .queued && $0.job != nil && $0.detail.contains("queued as job") }, "\(queued.actions)")
        let jobs = try Set(queued.actions.compactMap(\.job)).map { try #require(try library.job($0)) }
        #expect(jobs.allSatisfy { $0.kind == .repair && $0.state == .available })
        #expect(Set(jobs.map(\.asset)) == assets, "one job per asset that lost files")
        #expect(try library.verify(quick: true).problems.count == thumbnails.count, "nothing is made before a worker runs")
        let again = try library.repair(runJobs: false)
        #expect(Set(again.actions.compactMap(\.job)) == Set(jobs.map(\.id)), "the waiting jobs, not new ones")

        try JobWorker(library: library, options: .init(kinds: PhotoLibrary.repairJobKinds, untilIdle: true)).run()
        var settled = queued
        try library.settleRepairJobs(&settled)
        #expect(settled.actions.count == thumbnails.count && settled.actions.allSatisfy { $0.kind == .rebuilt && $0.job != nil }, "\(settled.actions)")
        #expect(try Self.derivedFiles(library) == recorded)
        #expect(try library.verify(quick: false).sound)
    }

    /// A repair job whose lease another worker took over places and records nothing; the
    /// one that holds it does the work.
    @Test func aRepairJobWhoseLeaseWasTakenOverRecordsNothing() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        _ = try Importer(library: library).run(paths: [Media.path("orientation/Landscape_1.jpg")])
        let thumbnail = library.absolute(try #require(try Self.derivedFiles(library).keys.first { $0.hasPrefix("derived/thumbnails/") }))
        try FileManager.default.removeItem(at: thumbnail)
        _ = try library.repair(runJobs: false)
        let stale = try #require(try library.claimJob(kinds: [.repair], worker: WorkerIdentity(host: "elsewhere", pid: 1)))
        // Its worker stops past its lease: the job goes back, and another takes it.
        try library.catalog.sqliteWrite { db in
            try db.execute(sql: "UPDATE job SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = ?", arguments: [stale.job.id])
        }
        #expect(try library.rescueJobs(host: "nowhere") == 1)
        try library.catalog.sqliteWrite { db in
            try db.execute(sql: "UPDATE job SET run_after = '2000-01-01T00:00:00.000Z' WHERE id = ?", arguments: [stale.job.id])
        }
        let fresh = try #require(try library.claimJob(kinds: [.repair], worker: WorkerIdentity(host: "elsewhere", pid: 2)))
        #expect(fresh.job.id == stale.job.id)

        #expect(throws: LeaseLost.self) { try library.repairAsset(stale) }
        #expect(!FileManager.default.fileExists(atPath: thumbnail.path), "the worker that lost its lease placed a file")
        #expect(try library.job(fresh.job.id)?.state == .running)
        try library.repairAsset(fresh)
        #expect(FileManager.default.fileExists(atPath: thumbnail.path))
        let done = try #require(try library.job(fresh.job.id))
        #expect(done.state == .done && done.result?.contains(#""kind":"rebuilt""#) == true, "\(done)")
        #expect(try library.verify(quick: false).sound)
    }

    /// Every derived file the catalog names, with its recorded sha256 (aux images' PNGs
    /// once made).
    static func derivedFiles(_ library: PhotoLibrary) throws -> [String: String] {
        try library.catalog.sqliteRead { db in
            let rows = try Row.fetchAll(
                db, sql: """
                    SELECT path, sha256 FROM resource WHERE path LIKE 'derived/%'
                    UNION ALL SELECT path, sha256 FROM aux_image WHERE sha256 IS NOT NULL
                    """)
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as String) })
        }
    }
}
