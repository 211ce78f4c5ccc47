import Foundation
import GRDB

/// What `camlib repair` did (or, for a dry run, would do).
public struct RepairReport: Codable, Sendable {
    public struct Action: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// A derived file, missing or damaged, made again from what it was made from.
            case rebuilt
            /// A file under derived/ that no row names (an edit or import killed half-way): deleted.
            case removed
            /// A file under originals/ that no row names: moved to lost+found/, not deleted.
            case movedAside
            /// A file an emptying of the trash listed and had not deleted yet: deleted now.
            case removalFinished
            /// Something repair cannot mend; `detail` says why and what to do.
            case notRepaired
        }

        public var kind: Kind
        public var asset: Int64?
        /// Absolute path of the file concerned.
        public var path: String
        public var detail: String
    }

    public var dryRun: Bool
    public var actions: [Action] = []
    /// Where files moved aside went (nil when none were).
    public var lostAndFound: String?
}

extension PhotoLibrary {
    /// Mends what verify finds that can be mended from the library itself: finishes an
    /// emptying of the trash that did not finish; makes every missing or damaged derived
    /// file (thumbnails, Motion Photo movies and posters) again from the file it was made
    /// from, by the same analysis import runs, and auxiliary images' PNGs as when they
    /// are first asked for (``auxiliaryPNG(_:)``), and every
    /// browsers' copy whose structure is broken (`damaged(_:)`) by the gallery's
    /// code; deletes files under `derived/` that no row names, and moves those under `originals/` to
    /// `lost+found/TIME/` (a file no row names is never taken for the library's, but
    /// it is not deleted either). camlib's own renders are rendered again from their
    /// recipes (`rerender(_:dryRun:)`). Damaged originals are reported, not mended.
    /// `progress` hears files made again of files to make.
    public func repair(dryRun: Bool = false, progress: (Int, Int) -> Void = { _, _ in }) throws -> RepairReport {
        var report = RepairReport(dryRun: dryRun)
        if !dryRun {
            let removal = try removeQueuedFiles()
            if removal.files > 0 {
                report.actions.append(
                    .init(kind: .removalFinished, asset: nil, path: layout.root.path,
                          detail: "finished an emptying of the trash: \(removal.files) files deleted"))
            }
            for problem in removal.problems { report.actions.append(.init(kind: .notRepaired, asset: nil, path: layout.root.path, detail: problem)) }
        }
        report.actions += try rebuildDerivedFiles(dryRun: dryRun, progress: progress)
        report.actions += try renderUnrenderedEdits(dryRun: dryRun)
        // One walk of the folders: the broken browsers' copies, then the strays.
        let files = try walkFiles()
        for cache in damaged(files.caches) {
            report.actions.append(
                dryRun
                    ? .init(kind: .rebuilt, asset: nil, path: cache.file.url.path, detail: "\(cache.file.path): \(cache.reason); it would be made again")
                    : try remake(cache))
        }
        report.actions += try clearStrayFiles(files.strays, dryRun: dryRun, report: &report)
        return report
    }

    /// Current camlib edits without a render of their still or movie (``VerifyReport/Problem/Kind/unrendered``),
    /// rendered again from their recipes.
    private func renderUnrenderedEdits(dryRun: Bool) throws -> [RepairReport.Action] {
        let assets = Set(try catalog.read { db in try AdjustmentRecord.currentWithoutRender(db) }.map(\.asset)).sorted()
        return assets.map { asset in
            let folder = layout.derived.appendingPathComponent("renders").path
            if dryRun {
                return .init(kind: .rebuilt, asset: asset, path: folder, detail: "asset \(asset): its current edit would be rendered again from its recipe")
            }
            do {
                let result = try renderCurrentEditAgain(asset: asset)
                return .init(kind: .rebuilt, asset: asset, path: result.renders.first ?? folder,
                             detail: "asset \(asset): its current edit had no render; rendered again from its recipe (\(result.renders.count) files)")
            } catch {
                return .init(kind: .notRepaired, asset: asset, path: folder,
                             detail: "asset \(asset): its current edit has no render and could not be rendered again: \(MediaAnalyzer.describe(error))")
            }
        }
    }

    /// Every derived file that is missing or does not hold its recorded bytes, made again.
    private func rebuildDerivedFiles(dryRun: Bool, progress: (Int, Int) -> Void) throws -> [RepairReport.Action] {
        var broken: [CatalogFile] = []
        try forEachCatalogFilePage { read in
            let page = read.filter { !$0.isOriginal }
            for (file, (problem, _)) in zip(page, check(page, quick: false)) where problem != nil && problem?.kind != .outside {
                broken.append(file)
            }
        }
        var actions: [RepairReport.Action] = []
        // Three rounds, each making what the next is made from: files made from originals
        // (among them a Motion Photo's movie, which its edit's render holds); camlib's
        // renders, from their recipes; files made from renders (their thumbnails and aux PNGs).
        let renderRoles = Set(ResourceRole.renders.map(\.rawValue))
        var fromOriginals: [Int64: [CatalogFile]] = [:], fromRenders: [Int64: [CatalogFile]] = [:]
        var renders: [CatalogFile] = [], auxImages: [CatalogFile] = []
        for file in broken {
            if file.source == .resource && renderRoles.contains(file.role) {
                renders.append(file)
                continue
            }
            // Aux images' PNGs are made as when first asked for, after the renders they
            // may come from.
            if file.source == .auxImage {
                auxImages.append(file)
                continue
            }
            guard let madeFrom = file.madeFrom else {
                actions.append(
                    .init(kind: .notRepaired, asset: file.assetId, path: absolute(file.path).path,
                          detail: "asset \(file.assetId): \(file.path) is missing or damaged, and the catalog does not say what it was made from"))
                continue
            }
            // What it is made from: a still or movie (or a render) whose analysis, as
            // import runs it, stages it again. A Motion Photo's poster is the still's too.
            let source = try catalog.read { db in try ResourceRecord.fetchOne(db, key: madeFrom) }
            let root = source?.derivedFrom.flatMap { id in source?.role == .pairedVideo ? id : nil } ?? madeFrom
            if let role = source?.role, renderRoles.contains(role.rawValue) {
                fromRenders[root, default: []].append(file)
            } else {
                fromOriginals[root, default: []].append(file)
            }
        }
        var done = 0
        let total = broken.count
        // In a dry run, what the renders' round would make is taken as made.
        let remade = Set(renders.map(\.id))
        func rebuildAll(_ bySource: [Int64: [CatalogFile]]) throws {
            for (sourceID, files) in bySource.sorted(by: { $0.key < $1.key }) {
                progress(done, total)
                done += files.count
                actions += try rebuild(files, from: sourceID, dryRun: dryRun, remade: remade)
            }
        }

        try rebuildAll(fromOriginals)
        for file in renders {
            progress(done, total)
            done += 1
            actions.append(try rerender(file, dryRun: dryRun))
        }
        try rebuildAll(fromRenders)
        progress(done, total)
        actions += try remakeAuxiliaryPNGs(auxImages, dryRun: dryRun)
        progress(total, total)
        return actions
    }

    /// Auxiliary images' PNGs that are missing or damaged, made again from their stills
    /// (each still read once for all of its images).
    private func remakeAuxiliaryPNGs(_ files: [CatalogFile], dryRun: Bool) throws -> [RepairReport.Action] {
        let rows = try catalog.read { db in try files.map { try AuxImageRecord.fetchOne(db, key: $0.id) } }
        let present = rows.compactMap { $0 }
        let made = dryRun ? [] : try auxiliaryPNGs(present, remake: true)
        let outcome = Dictionary(uniqueKeysWithValues: zip(present.map(\.id), made))
        return try zip(files, rows).map { file, row in
            let path = absolute(file.path).path
            guard row != nil else {
                return .init(kind: .notRepaired, asset: file.assetId, path: path, detail: "asset \(file.assetId): \(file.path): its row is gone")
            }
            if dryRun {
                return .init(kind: .rebuilt, asset: file.assetId, path: path, detail: "asset \(file.assetId): \(file.path) would be made again from its still")
            }
            if case .failure(let error)? = outcome[file.id] {
                return .init(kind: .notRepaired, asset: file.assetId, path: path, detail: "asset \(file.assetId): \(file.path): \(error)")
            }
            let now = try catalog.read { db in try AuxImageRecord.fetchOne(db, key: file.id)?.sha256 }
            let same = now == file.sha256 ? "the same bytes as before" : "new bytes, recorded"
            return .init(kind: .rebuilt, asset: file.assetId, path: path, detail: "asset \(file.assetId): \(file.path) made again from its still (\(same))")
        }
    }

    /// `files`, all made from the resource `sourceID`, made again from it. `remade`: the
    /// resources an earlier round makes again (a dry run finds them still broken).
    private func rebuild(_ files: [CatalogFile], from sourceID: Int64, dryRun: Bool, remade: Set<Int64>) throws -> [RepairReport.Action] {
        func notRepaired(_ file: CatalogFile, _ why: String) -> RepairReport.Action {
            .init(kind: .notRepaired, asset: file.assetId, path: absolute(file.path).path, detail: "asset \(file.assetId): \(file.path): \(why)")
        }
        guard let source = try catalog.read({ db in try ResourceRecord.fetchOne(db, key: sourceID) }), let sourceURL = layout.confined(source.path)
        else { return files.map { notRepaired($0, "what it was made from is not in the catalog") } }
        // The source itself must be whole, or what is made from it would be wrong.
        guard (dryRun && remade.contains(sourceID)) || (try? FileReading.sha256(of: sourceURL.path)) == source.sha256 else {
            return files.map { notRepaired($0, "it is made from \(source.path), which is missing or damaged itself") }
        }
        if dryRun {
            return files.map { .init(kind: .rebuilt, asset: $0.assetId, path: absolute($0.path).path, detail: "asset \($0.assetId): \($0.path) would be made again from \(source.path)") }
        }
        let outcome = MediaAnalyzer.analyze(path: sourceURL.path, stagingDirectory: temporary)
        defer { outcome.discardStagedFiles() }
        let a: MediaAnalysis
        switch outcome {
        case .analyzed(let analysis): a = analysis
        case .failed(_, let reason), .skipped(_, let reason): return files.map { notRepaired($0, "\(source.path) could not be read again: \(reason)") }
        case .alreadyInLibrary: return files.map { notRepaired($0, "\(source.path) could not be read again") }
        }
        // The movie cut out of the still, and its poster (a thumbnail made from that movie).
        let movieID = try catalog.read { db in
            try ResourceRecord.all().filter(ResourceRecord.Columns.derivedFrom == sourceID).filter(role: .pairedVideo).fetchOne(db)?.id
        }
        var actions: [RepairReport.Action] = []
        for file in files {
            let staged: (path: String, sha256: String, bytes: Int64)?
            let thumbnail = file.role == ResourceRole.thumbnail.rawValue
            if thumbnail && file.madeFrom == sourceID {
                staged = a.thumbnail.map { ($0.temporaryPath, $0.sha256, $0.bytes) }
            } else if thumbnail && movieID != nil && file.madeFrom == movieID {
                staged = a.embeddedMovie?.thumbnail.map { ($0.temporaryPath, $0.sha256, $0.bytes) }
            } else if file.role == ResourceRole.pairedVideo.rawValue && file.madeFrom == sourceID {
                staged = a.embeddedMovie.map { ($0.temporaryPath, $0.sha256, $0.bytes) }
            } else {
                staged = nil
            }
            guard let staged, let destination = layout.confined(file.path) else {
                actions.append(notRepaired(file, "reading \(source.path) again did not make it"))
                continue
            }
            try AtomicFile.makeDurable([staged.path])  // an analysis stages files without fsyncing them
            try catalog.write { db in
                _ = try publishDerived(URL(fileURLWithPath: staged.path), to: destination)
                if staged.sha256 != file.sha256 || staged.bytes != file.bytes {
                    try CatalogFile.setBytes(file.source, id: file.id, sha256: staged.sha256, bytes: staged.bytes, db)
                }
            }
            let same = staged.sha256 == file.sha256 ? "the same bytes as before" : "new bytes, recorded"
            actions.append(.init(kind: .rebuilt, asset: file.assetId, path: destination.path, detail: "asset \(file.assetId): \(file.path) made again from \(source.path) (\(same))"))
        }
        return actions
    }

    /// Files no row names: those under derived/ deleted, those under originals/ moved to
    /// lost+found/. Each is looked up again inside a write transaction, where no import,
    /// edit or attach can be between publishing a file and recording it (they publish in
    /// theirs), so a file about to be named is never taken for a stray.
    private func clearStrayFiles(_ found: [StrayFile], dryRun: Bool, report: inout RepairReport) throws -> [RepairReport.Action] {
        let strays = found.filter { !$0.queued }
        guard !strays.isEmpty else { return [] }
        if dryRun {
            return strays.map { stray in
                let original = stray.path.hasPrefix("originals/")
                return .init(kind: original ? .movedAside : .removed, asset: nil, path: stray.url.path,
                             detail: "\(stray.url.path): no catalog row names it; it would be \(original ? "moved to lost+found/" : "deleted")")
            }
        }
        let aside = layout.lostAndFound.appendingPathComponent(catalogTime(Date()).replacingOccurrences(of: ":", with: "-"))
        return try catalog.write { db in
            var actions: [RepairReport.Action] = []
            for stray in strays where try !CatalogFile.isNamed(stray.path, db) {
                if stray.path.hasPrefix("originals/") {
                    let destination = aside.appendingPathComponent(stray.path)
                    try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                    guard rename(stray.url.path, destination.path) == 0 else {
                        actions.append(.init(kind: .notRepaired, asset: nil, path: stray.url.path, detail: "\(stray.url.path): moving it to \(destination.path) failed: \(String(cString: strerror(errno)))"))
                        continue
                    }
                    report.lostAndFound = aside.path
                    actions.append(.init(kind: .movedAside, asset: nil, path: stray.url.path, detail: "\(stray.url.path): no catalog row names it; moved to \(destination.path)"))
                } else if unlink(stray.url.path) == 0 || errno == ENOENT {
                    actions.append(.init(kind: .removed, asset: nil, path: stray.url.path, detail: "\(stray.url.path): no catalog row names it; deleted (camlib made it, and can again)"))
                } else {
                    actions.append(.init(kind: .notRepaired, asset: nil, path: stray.url.path, detail: "\(stray.url.path): deleting it failed: \(String(cString: strerror(errno)))"))
                }
            }
            return actions
        }
    }
}
