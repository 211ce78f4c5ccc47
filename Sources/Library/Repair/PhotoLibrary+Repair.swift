import Foundation

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
            /// Left to the job `job`, not run yet (`--no-wait`, or a repair cut short): a
            /// worker (`camlib worker`, `camlib serve`) mends it.
            case queued
        }

        public var kind: Kind
        public var asset: Int64?
        /// Absolute path of the file concerned.
        public var path: String
        public var detail: String
        /// The job that mends it (a `queued` action, and what its job did).
        public var job: Int64? = nil
    }

    public var dryRun: Bool
    public var actions: [Action] = []
    /// Where files moved aside went (nil when none were).
    public var lostAndFound: String?
    /// The jobs this repair queued, as one batch (nil when it queued none).
    public var jobBatch: String?
}

/// What a done `repair` job records in its `result`: what it did to its asset's files.
struct RepairJobResult: Codable {
    var actions: [RepairReport.Action]

    var json: String { String(decoding: try! JobResultJSON.encoder.encode(self), as: UTF8.self) }
}

extension PhotoLibrary {
    /// The kinds of job a repair queues: `repair` for an asset's lost derived files and
    /// camlib's renders, `preview` and `proxy` for browsers' copies.
    public static let repairJobKinds: [JobKind] = [.repair, .preview, .proxy]

    /// Mends what verify finds that can be mended from the library itself: finishes an
    /// emptying of the trash that did not finish; makes every missing or damaged derived
    /// file (thumbnails, Motion Photo movies and posters) again from the file it was made
    /// from, by the same analysis import runs, and auxiliary images' PNGs as when they
    /// are first asked for (``auxiliaryPNG(_:)``); renders camlib's own edits again from
    /// their recipes (`rerender(_:dryRun:fence:)`), and makes every browsers' copy whose
    /// structure is broken (`damaged(_:)`) again by the gallery's code; deletes files
    /// under `derived/` that no row names, and moves those under `originals/` to
    /// `lost+found/TIME/` (a file no row names is never taken for the library's, but it
    /// is not deleted either). Damaged originals are reported, not mended.
    ///
    /// What takes decoding is done by jobs, queued as the batch ``RepairReport/jobBatch``:
    /// one `repair` job per asset, one `preview` or `proxy` job per browsers' copy. With
    /// `runJobs`, this process runs them and the report says what each did; without, they
    /// are left to workers (the report lists them as `queued`; ``settleRepairJobs(_:)``
    /// puts in what they did once they have run). `progress` hears files checked of files
    /// to check.
    public func repair(dryRun: Bool = false, runJobs: Bool = true, progress: (Int, Int) -> Void = { _, _ in }) throws -> RepairReport {
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
        let broken = try brokenDerivedFiles(progress: progress)
        let unrendered = Set(try catalog.read { db in try AdjustmentRecord.currentWithoutRender(db) }.map(\.asset))
        // One walk of the folders: the broken browsers' copies, then the strays.
        let files = try walkFiles()
        let caches = damaged(files.caches)
        if dryRun {
            report.actions += try remake(broken, dryRun: true, fence: nil)
            report.actions += unrendered.sorted().map { asset in
                .init(kind: .rebuilt, asset: asset, path: layout.derived.appendingPathComponent("renders").path,
                      detail: "asset \(asset): its current edit would be rendered again from its recipe")
            }
            report.actions += caches.map { cache in
                .init(kind: .rebuilt, asset: nil, path: cache.file.url.path, detail: "\(cache.file.path): \(cache.reason); it would be made again")
            }
        } else {
            try queueRepairs(broken: broken, unrendered: unrendered, caches: caches, into: &report)
        }
        report.actions += try clearStrayFiles(files.strays, dryRun: dryRun, report: &report)
        if runJobs, let batch = report.jobBatch {
            let worker = JobWorker(library: self, options: .init(kinds: Self.repairJobKinds, batch: batch, untilIdle: true))
            try worker.run()
            try settleRepairJobs(&report)
        }
        return report
    }

    /// Puts what its jobs did in place of the `queued` actions of `report` whose jobs have
    /// run: a repair job's own actions; a browsers' copy made again; what failed, with the
    /// job's error. Those not run yet stay `queued`.
    public func settleRepairJobs(_ report: inout RepairReport) throws {
        var settled: [RepairReport.Action] = []
        for action in report.actions {
            guard action.kind == .queued, let id = action.job, let job = try job(id) else {
                settled.append(action)
                continue
            }
            switch job.state {
            case .available, .running:
                settled.append(action)
            case .done where job.kind == .repair:
                let result = job.result.flatMap { try? JSONDecoder().decode(RepairJobResult.self, from: Data($0.utf8)) }
                settled += (result?.actions ?? []).map { var a = $0; a.job = id; return a }
            case .done:
                // A browsers' copy: "… was deleted, to be made again from F; queued as job N".
                var made = action
                made.kind = .rebuilt
                made.detail = Self.withoutQueuedWords(action.detail, id).replacingOccurrences(
                    of: " was deleted, to be made again from ", with: " made again from ")
                settled.append(made)
            case .failed, .cancelled:
                var failed = action
                failed.kind = .notRepaired
                failed.detail = Self.withoutQueuedWords(action.detail, id)
                    + "; job \(id) \(job.state.rawValue): " + (job.lastError ?? "no error was recorded")
                settled.append(failed)
            }
        }
        report.actions = settled
    }

    /// What a `queued` action's detail ends with.
    private static func queuedWords(_ job: Int64) -> String { "; queued as job \(job)" }

    private static func withoutQueuedWords(_ detail: String, _ job: Int64) -> String {
        detail.hasSuffix(queuedWords(job)) ? String(detail.dropLast(queuedWords(job).count)) : detail
    }

    /// Queues the jobs that mend `broken` files, the renders of `unrendered` edits and the
    /// damaged browsers' `caches` (each deleted first: a worker makes a copy only where
    /// there is none), as one batch; adds a `queued` action for each.
    private func queueRepairs(broken: [CatalogFile], unrendered: Set<Int64>, caches: [DamagedCache], into report: inout RepairReport) throws {
        var jobs: [(NewJob, RepairReport.Action)] = []
        let byAsset = Dictionary(grouping: broken, by: \.assetId)
        for asset in Set(byAsset.keys).union(unrendered).sorted() {
            let files = byAsset[asset] ?? []
            var what: [String] = []
            if !files.isEmpty {
                let listed = files.prefix(3).map(\.path).joined(separator: ", ") + (files.count > 3 ? ", …" : "")
                what.append(files.count == 1 ? "\(listed) is missing or damaged" : "\(files.count) derived files are missing or damaged (\(listed))")
            }
            if unrendered.contains(asset) { what.append("its current edit has no render") }
            let path = files.first.map { absolute($0.path).path } ?? layout.derived.appendingPathComponent("renders").path
            jobs.append(
                (NewJob(kind: .repair, asset: asset, dedupeKey: "repair:\(asset)"),
                 .init(kind: .queued, asset: asset, path: path, detail: "asset \(asset): " + what.joined(separator: "; "))))
        }
        for cache in caches {
            switch try prepareRemake(cache) {
            case .done(let action): report.actions.append(action)
            case .job(let job, let action): jobs.append((job, action))
            }
        }
        guard !jobs.isEmpty else { return }
        let batch = "repair-\(UUID().uuidString.lowercased())"
        let ids = try enqueue(jobs.map(\.0), batch: batch)
        report.jobBatch = batch
        for ((_, action), id) in zip(jobs, ids) {
            var queued = action
            queued.job = id
            queued.detail += Self.queuedWords(id)
            report.actions.append(queued)
        }
    }

    /// A `repair` job: the asset's derived files that are missing or damaged now, made
    /// again in the order they are made from one another, and its current edit rendered
    /// again when it has lost its renders. Each file is recorded only while the lease is
    /// this worker's; the job's `result` lists what was done (``RepairJobResult``).
    func repairAsset(_ lease: JobLease) throws {
        let job = lease.job
        let fence: (any CatalogConnection) throws -> Void = { db in try JobRecord.checkLease(job.id, token: lease.token, db) }
        let files = try catalog.read { db in
            try CatalogFile.all(.resource, of: job.asset, db) + CatalogFile.all(.auxImage, of: job.asset, db)
        }.filter { !$0.isOriginal }
        let broken = zip(files, check(files, quick: false)).compactMap { file, result in
            result.0 != nil && result.0?.kind != .outside ? file : nil
        }
        var actions = try remake(broken, dryRun: false, fence: fence)
        if try !catalog.read({ db in try AdjustmentRecord.currentWithoutRender(asset: job.asset, db) }).isEmpty {
            actions.append(try renderUnrenderedEdit(job.asset, fence: fence))
        }
        try catalog.write { db in
            try JobRecord.complete(job.id, token: lease.token, db)
            try JobRecord.setResult(RepairJobResult(actions: actions).json, of: job.id, db)
        }
    }

    /// A current camlib edit without a render of its still or movie
    /// (``VerifyReport/Problem/Kind/unrendered``), rendered again from its recipe.
    private func renderUnrenderedEdit(_ asset: Int64, fence: @escaping (any CatalogConnection) throws -> Void) throws -> RepairReport.Action {
        let folder = layout.derived.appendingPathComponent("renders").path
        do {
            let result = try renderCurrentEditAgain(asset: asset, fence: fence)
            return .init(kind: .rebuilt, asset: asset, path: result.renders.first ?? folder,
                         detail: "asset \(asset): its current edit had no render; rendered again from its recipe (\(result.renders.count) files)")
        } catch let lost as LeaseLost {
            throw lost
        } catch {
            return .init(kind: .notRepaired, asset: asset, path: folder,
                         detail: "asset \(asset): its current edit has no render and could not be rendered again: \(MediaAnalyzer.describe(error))")
        }
    }

    /// Every derived file that is missing or does not hold its recorded bytes.
    private func brokenDerivedFiles(progress: (Int, Int) -> Void) throws -> [CatalogFile] {
        var broken: [CatalogFile] = []
        let total = try catalog.read { db in try CatalogFile.count(db) }
        var checked = 0
        try forEachCatalogFilePage { read in
            let page = read.filter { !$0.isOriginal }
            for (file, (problem, _)) in zip(page, check(page, quick: false)) where problem != nil && problem?.kind != .outside {
                broken.append(file)
            }
            checked += read.count
            progress(checked, total)
        }
        return broken
    }

    /// `broken` derived files made again (or, in a dry run, what would be), in three
    /// rounds, each making what the next is made from: files made from originals (among
    /// them a Motion Photo's movie, which its edit's render holds); camlib's renders,
    /// from their recipes; files made from renders (their thumbnails and aux PNGs).
    /// `fence` runs in each transaction that records a file (a job's lease check).
    private func remake(_ broken: [CatalogFile], dryRun: Bool, fence: ((any CatalogConnection) throws -> Void)?) throws -> [RepairReport.Action] {
        var actions: [RepairReport.Action] = []
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
            let source = try catalog.read { db in try ResourceRecord.find(madeFrom, db) }
            let root = source?.derivedFrom.flatMap { id in source?.role == .pairedVideo ? id : nil } ?? madeFrom
            if let role = source?.role, renderRoles.contains(role.rawValue) {
                fromRenders[root, default: []].append(file)
            } else {
                fromOriginals[root, default: []].append(file)
            }
        }
        // In a dry run, what the renders' round would make is taken as made.
        let remade = Set(renders.map(\.id))
        func rebuildAll(_ bySource: [Int64: [CatalogFile]]) throws {
            for (sourceID, files) in bySource.sorted(by: { $0.key < $1.key }) {
                actions += try rebuild(files, from: sourceID, dryRun: dryRun, remade: remade, fence: fence)
            }
        }
        try rebuildAll(fromOriginals)
        for file in renders { actions.append(try rerender(file, dryRun: dryRun, fence: fence)) }
        try rebuildAll(fromRenders)
        actions += try remakeAuxiliaryPNGs(auxImages, dryRun: dryRun, fence: fence)
        return actions
    }

    /// Auxiliary images' PNGs that are missing or damaged, made again from their stills
    /// (each still read once for all of its images).
    private func remakeAuxiliaryPNGs(_ files: [CatalogFile], dryRun: Bool, fence: ((any CatalogConnection) throws -> Void)?) throws -> [RepairReport.Action] {
        guard !files.isEmpty else { return [] }
        let rows = try catalog.read { db in try files.map { try AuxImageRecord.find($0.id, db) } }
        let present = rows.compactMap { $0 }
        let made = dryRun ? [] : try auxiliaryPNGs(present, remake: true, fence: fence)
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
            let now = try catalog.read { db in try AuxImageRecord.find(file.id, db)?.sha256 }
            let same = now == file.sha256 ? "the same bytes as before" : "new bytes, recorded"
            return .init(kind: .rebuilt, asset: file.assetId, path: path, detail: "asset \(file.assetId): \(file.path) made again from its still (\(same))")
        }
    }

    /// `files`, all made from the resource `sourceID`, made again from it. `remade`: the
    /// resources an earlier round makes again (a dry run finds them still broken). `fence`
    /// runs in the transaction that records each.
    private func rebuild(_ files: [CatalogFile], from sourceID: Int64, dryRun: Bool, remade: Set<Int64>, fence: ((any CatalogConnection) throws -> Void)?) throws
        -> [RepairReport.Action]
    {
        func notRepaired(_ file: CatalogFile, _ why: String) -> RepairReport.Action {
            .init(kind: .notRepaired, asset: file.assetId, path: absolute(file.path).path, detail: "asset \(file.assetId): \(file.path): \(why)")
        }
        guard let source = try catalog.read({ db in try ResourceRecord.find(sourceID, db) }), let sourceURL = layout.confined(source.path)
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
            try ResourceRecord.embeddedMovieID(of: sourceID, db)
        }
        var actions: [RepairReport.Action] = []
        for file in files {
            let staged: (path: String, sha256: String, bytes: Int64, crc32: UInt32?)?
            let thumbnail = file.role == ResourceRole.thumbnail.rawValue
            if thumbnail && file.madeFrom == sourceID {
                staged = a.thumbnail.map { ($0.temporaryPath, $0.sha256, $0.bytes, nil) }
            } else if thumbnail && movieID != nil && file.madeFrom == movieID {
                staged = a.embeddedMovie?.thumbnail.map { ($0.temporaryPath, $0.sha256, $0.bytes, nil) }
            } else if file.role == ResourceRole.pairedVideo.rawValue && file.madeFrom == sourceID {
                staged = a.embeddedMovie.map { ($0.temporaryPath, $0.sha256, $0.bytes, $0.crc32) }
            } else {
                staged = nil
            }
            guard let staged, let destination = layout.confined(file.path) else {
                actions.append(notRepaired(file, "reading \(source.path) again did not make it"))
                continue
            }
            try AtomicFile.makeDurable([staged.path])  // an analysis stages files without fsyncing them
            try catalog.write { db in
                try fence?(db)
                _ = try publishDerived(URL(fileURLWithPath: staged.path), to: destination)
                if staged.sha256 != file.sha256 || staged.bytes != file.bytes {
                    try CatalogFile.setBytes(file.source, id: file.id, sha256: staged.sha256, bytes: staged.bytes, crc32: staged.crc32, db)
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
