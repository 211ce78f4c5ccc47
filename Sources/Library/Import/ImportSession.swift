import Codecs
import Containers
import Foundation

/// The committing half of one import: copies originals in and writes their catalog rows,
/// a group of files per transaction and a savepoint per file, joining Live Photo halves
/// (``LivePhotoPairing``). Apple's sidecars and rendered edits (`ImportSession+AppleEdits`)
/// and camlib's exported histories (`ImportSession+History`) attach to the assets
/// committed here. Used from one thread.
struct ImportSession {
    let library: PhotoLibrary
    /// For sidecars: folder → lower-cased stem → the asset a still or movie of that name
    /// went to in this import (new or already there). Stills win over movies.
    private var stems: [String: [String: (asset: Int64, still: Bool)]] = [:]
    var touchedAssets = Set<Int64>()
    /// Every asset a file of this import went to or was found in (duplicates too).
    private(set) var assetsMet = Set<Int64>()
    /// Path → what happened to the file, for the files that went to an asset.
    private(set) var fileOutcomes: [String: ImportedFile] = [:]

    /// The links through which files whose names are not UTF-8 are read.
    let standIns: StandInNames?
    /// The batch the jobs of this import are queued as; nil: no jobs are queued (the
    /// analysis made the thumbnails).
    let jobBatch: String?

    init(library: PhotoLibrary, standIns: StandInNames? = nil, jobBatch: String? = nil) {
        self.library = library
        self.standIns = standIns
        self.jobBatch = jobBatch
    }

    /// Priority of the proxies an import queues: after every thumbnail.
    static let proxyPriority = 10

    /// The folder the file at `path` was imported from, as the catalog records it
    /// (`source_dir`): for a stand-in, the source folder as ``RawPath/presented`` reads it.
    func sourceFolder(of path: String) -> String {
        standIns?.sourceFolder(of: path) ?? URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    enum Outcome {
        case imported(asset: Int64, createdAsset: Bool, paired: Bool)
        case duplicate(asset: Int64)
    }

    // MARK: Photos and movies

    mutating func commitMedia(_ a: MediaAnalysis, into report: inout ImportReport) {
        commitMedia([a], into: &report)
    }

    /// Commits a group of analysed files, in order, in one transaction: each file's rows
    /// in a savepoint of their own (a file that fails is an error of its own and leaves
    /// nothing behind), each folder a file went into fsynced once, and the catalog
    /// fsynced once. Files first, rows after: a crash in between leaves unlisted files,
    /// never a row naming a missing one. The import groups what has arrived while it was
    /// committing: one file at a time while it keeps up, more on a slow disk.
    mutating func commitMedia(_ group: [MediaAnalysis], into report: inout ImportReport) {
        // Staged files that were not published (a duplicate, an error) go; no-ops otherwise.
        defer { for a in group { AnalysisOutcome.analyzed(a).discardStagedFiles() } }
        var results = [Result<Outcome, Error>?](repeating: nil, count: group.count)
        var ready: [Int] = []
        for (i, a) in group.enumerated() {
            do {
                if library.rehearsal == nil { try a.makeStagedFilesDurable() }
                ready.append(i)
            } catch {
                results[i] = .failure(error)
            }
        }
        var published: [URL] = []
        do {
            let committed: [Int: Result<Outcome, Error>] = try library.catalog.write { db in
                var done: [Int: Result<Outcome, Error>] = [:]
                var folders = Set<URL>()
                for i in ready {
                    var mine: [URL] = []
                    do {
                        var outcome: Outcome?
                        try db.savepoint {
                            outcome = try commitOne(group[i], published: &mine, db)
                        }
                        done[i] = .success(outcome!)
                        published += mine
                        folders.formUnion(mine.map { $0.deletingLastPathComponent() })
                    } catch {
                        for url in mine { unlink(url.path) }
                        done[i] = .failure(error)
                    }
                }
                if library.rehearsal == nil {
                    for folder in folders.sorted(by: { $0.path < $1.path }) { try AtomicFile.syncDirectory(folder) }
                }
                return done
            }
            for (i, result) in committed { results[i] = result }
        } catch {
            // The transaction as a whole failed (the disk is full, say): nothing of the
            // group is in the catalog, so none of its files may stay.
            for url in published { unlink(url.path) }
            for i in ready { results[i] = .failure(error) }
        }
        for (a, result) in zip(group, results) {
            switch result {
            case .success(let outcome)?: record(outcome, for: a, into: &report)
            case .failure(let error)?: report.errors.append(FileProblem(path: a.path, message: MediaAnalyzer.describe(error)))
            case nil: report.errors.append(FileProblem(path: a.path, message: "camlib internal error: the file was not committed"))
            }
        }
    }

    /// A file the analysis found already in the library: a duplicate, remembered for the
    /// sidecars of this import.
    mutating func recordKnown(path: String, sha256: String, isStill: Bool, into report: inout ImportReport) {
        guard let asset = try? library.catalog.read({ db in try ResourceRecord.assetHolding(original: sha256, db) }) else {
            report.errors.append(FileProblem(path: path, message: "camlib internal error: a known file is missing from the catalog"))
            return
        }
        report.duplicates += 1
        fileOutcomes[path] = ImportedFile(path: path, outcome: .duplicate, asset: asset)
        remember(path: path, asset: asset, isStill: isStill)
    }

    private mutating func remember(path: String, asset: Int64, isStill: Bool) {
        assetsMet.insert(asset)
        let url = URL(fileURLWithPath: path)
        let dir = sourceFolder(of: path)
        let stem = PairingRules.stem(url.lastPathComponent)
        if let existing = stems[dir]?[stem], existing.still, !isStill { return }
        stems[dir, default: [:]][stem] = (asset, isStill)
    }

    private mutating func record(_ outcome: Outcome, for a: MediaAnalysis, into report: inout ImportReport) {
        let asset: Int64
        switch outcome {
        case .imported(let id, let created, let paired):
            report.imported += 1
            if created { report.assetsCreated += 1 }
            if paired { report.livePhotosPaired += 1 }
            touchedAssets.insert(id)
            asset = id
            fileOutcomes[a.path] = ImportedFile(path: a.path, outcome: .imported, asset: id, paired: paired)
        case .duplicate(let id):
            report.duplicates += 1
            asset = id
            fileOutcomes[a.path] = ImportedFile(path: a.path, outcome: .duplicate, asset: id)
        }
        remember(path: a.path, asset: asset, isStill: a.format.isStill)
    }

    /// One file of a group: its files published (into `published`, folders not yet
    /// fsynced) and its rows inserted, in the caller's transaction.
    private func commitOne(_ a: MediaAnalysis, published: inout [URL], _ db: any CatalogConnection) throws -> Outcome {
        let source = URL(fileURLWithPath: a.path)
        let layout = library.layout
        if let existing = try ResourceRecord.assetHolding(original: a.sha256, db) { return .duplicate(asset: existing) }
        let staged = AtomicFile.Temporary(url: URL(fileURLWithPath: a.stagedCopy), sha256: a.sha256, bytes: a.bytes, crc32: a.crc32)
        let original = try library.publishOriginal(staged, named: source.lastPathComponent, capturedAt: a.metadata.capturedAt, syncFolder: false, db)
        published.append(original)
        var thumbnailURL: URL?
        if let t = a.thumbnail {
            thumbnailURL = try library.publishDerived(URL(fileURLWithPath: t.temporaryPath), to: layout.thumbnail(of: a.sha256), syncFolder: false)
            published.append(thumbnailURL!)
        }
        // Where each aux image's PNG goes when it is first asked for (none is made now);
        // an image whose container is damaged gets none.
        var auxURLs: [URL?] = []
        var names = AuxiliaryFileNames()
        for aux in a.auxiliaryImages {
            let name = names.next(for: aux.type)
            auxURLs.append(aux.problem == nil ? layout.auxiliaryImages(of: a.sha256).appendingPathComponent(name) : nil)
        }
        var movieURL: URL?
        var posterURL: URL?
        if let movie = a.embeddedMovie {
            movieURL = try library.publishDerived(
                URL(fileURLWithPath: movie.temporaryPath), to: layout.motionMovie(of: a.sha256, format: movie.format), syncFolder: false)
            published.append(movieURL!)
            if let t = movie.thumbnail {
                // Named after the still: two stills may embed the same movie.
                posterURL = try library.publishDerived(
                    URL(fileURLWithPath: t.temporaryPath), to: layout.thumbnail(of: a.sha256, suffix: "-motion"), syncFolder: false)
                published.append(posterURL!)
            }
        }
        let outcome = try insert(a, original: original, thumbnail: thumbnailURL, db)
        if case .imported(let asset, _, _) = outcome {
            try insertExtras(a, asset: asset, auxURLs: auxURLs, movie: movieURL, poster: posterURL, db)
        }
        return outcome
    }

    /// Rows for a new still or movie: joins its Live Photo partner's asset when there is
    /// one, else becomes an asset of its own.
    private func insert(_ a: MediaAnalysis, original: URL, thumbnail: URL?, _ db: any CatalogConnection) throws -> Outcome {
        let now = utcNow()
        let isStill = a.format.isStill
        let sourceURL = URL(fileURLWithPath: a.path)
        // A Motion Photo carries its own movie; it is never half of a Live Photo.
        let partner = a.embeddedMovie == nil ? try LivePhotoPairing.partner(for: a, from: sourceFolder(of: a.path), db) : nil

        var assetID: Int64
        var created = false
        if let partner {
            assetID = partner.asset
            try AssetRecord.setKind(.live, of: assetID, db)
            if isStill { try ResourceRecord.setRole(.pairedVideo, of: partner.resource, db) }
        } else {
            var asset = AssetRecord(id: nil, kind: isStill ? .photo : .video, importedAt: now)
            try db.insert(&asset)
            assetID = asset.id!
            created = true
        }
        let role: ResourceRole = isStill ? .photo : (partner == nil ? .video : .pairedVideo)
        var resource = ResourceRecord(
            id: nil, assetId: assetID, role: role, path: library.relative(original), sha256: a.sha256, bytes: a.bytes,
            mime: a.format.mimeType, derivedFrom: nil, originalName: sourceURL.lastPathComponent,
            sourceDir: sourceFolder(of: a.path), addedAt: now, crc32: a.crc32)
        try db.insert(&resource)
        let resourceID = resource.id!
        try db.insert(MetadataRecord(a, resourceID: resourceID, place: try Self.place(of: a.metadata, db)))
        if let thumbnail, let t = a.thumbnail {
            var thumb = ResourceRecord(
                id: nil, assetId: assetID, role: .thumbnail, path: library.relative(thumbnail), sha256: t.sha256,
                bytes: t.bytes, mime: "image/jpeg", derivedFrom: resourceID, originalName: nil, sourceDir: nil, addedAt: now)
            try db.insert(&thumb)
        }
        if let jobBatch {
            // Queued with the rows: a crash cannot leave a file without its thumbnail's job.
            var jobs: [NewJob] = []
            if a.thumbnail == nil { jobs.append(.derived(.thumbnail, asset: assetID, resource: resourceID)) }
            // Browsers play H.264 only: the copy they will ask for is made ahead.
            if !isStill, let codec = a.metadata.videoCodec, codec != "h264" {
                jobs.append(.derived(.proxy, asset: assetID, resource: resourceID, priority: Self.proxyPriority))
            }
            if !jobs.isEmpty, library.rehearsal == nil { _ = try JobRecord.enqueue(jobs, batch: jobBatch, db) }
        }
        if let partner {
            try db.insert(
                PairingRecord(
                assetId: assetID, photoResourceId: isStill ? resourceID : partner.resource,
                videoResourceId: isStill ? partner.resource : resourceID, rule: partner.rule,
                contentIdentifier: partner.rule == .contentIdentifier ? a.metadata.contentIdentifier : nil,
                confidence: partner.confidence, pairedAt: now
                ))
        }
        return .imported(asset: assetID, createdAsset: created, paired: partner != nil)
    }

    /// The catalog's place (0025) where a file with `metadata` was taken, named from its
    /// location by camlib's places; nil without a location or far from every place.
    static func place(of metadata: MediaMetadata, _ db: any CatalogConnection) throws -> Int64? {
        guard let location = metadata.location,
            let name = PlaceIndex.bundled.name(latitude: location.latitude, longitude: location.longitude)
        else { return nil }
        return try PlaceRecord.id(of: name, db)
    }

    /// Rows for a still's auxiliary images and embedded movie, after the still's own.
    private func insertExtras(
        _ a: MediaAnalysis, asset: Int64, auxURLs: [URL?], movie movieURL: URL?, poster: URL?, _ db: any CatalogConnection
    ) throws {
        guard !a.auxiliaryImages.isEmpty || a.embeddedMovie != nil else { return }
        guard let still = try ResourceRecord.find(asset: asset, role: .photo, sha256: a.sha256, db)?.id else { return }
        let now = utcNow()
        for (aux, url) in zip(a.auxiliaryImages, auxURLs) {
            var record = AuxImageRecord(
                id: nil, assetId: asset, resourceId: still, type: aux.type, urn: aux.urn, source: aux.source, width: aux.width,
                height: aux.height, bitDepth: aux.bitDepth, channels: aux.channels, path: url.map(library.relative),
                sha256: nil, bytes: nil, encoding: aux.encoding.json,
                problem: aux.problem, addedAt: now)
            try db.insert(&record)
        }
        if let movie = a.embeddedMovie, let url = movieURL {
            try AssetRecord.setKind(.motion, of: asset, db)
            var resource = ResourceRecord(
                id: nil, assetId: asset, role: .pairedVideo, path: library.relative(url), sha256: movie.sha256, bytes: movie.bytes,
                mime: movie.format.mimeType, derivedFrom: still, originalName: nil, sourceDir: nil, addedAt: now, crc32: movie.crc32)
            try db.insert(&resource)
            var analysis = a
            analysis.format = movie.format
            analysis.metadata = movie.metadata
            analysis.warnings = movie.note.map { [$0] } ?? []
            try db.insert(MetadataRecord(analysis, resourceID: resource.id!, place: try Self.place(of: movie.metadata, db)))
            if let poster, let t = movie.thumbnail {
                var thumb = ResourceRecord(
                    id: nil, assetId: asset, role: .thumbnail, path: library.relative(poster), sha256: t.sha256, bytes: t.bytes,
                    mime: "image/jpeg", derivedFrom: resource.id!, originalName: nil, sourceDir: nil, addedAt: now)
                try db.insert(&thumb)
            }
            try db.insert(
                EmbeddedMovieRecord(
                resourceId: resource.id!, stillResourceId: still, offset: movie.offset, length: movie.bytes,
                declaredBy: movie.declaredBy, note: movie.note
                ))
            // A Motion Photo's HEVC movie, as a Live Photo's: its browsers' copy made ahead.
            if let jobBatch, library.rehearsal == nil, let codec = movie.metadata.videoCodec, codec != "h264" {
                _ = try JobRecord.enqueue([.derived(.proxy, asset: asset, resource: resource.id!, priority: Self.proxyPriority)], batch: jobBatch, db)
            }
        }
    }

    // MARK: Files that belong to an asset

    /// Links a staged copy beside the asset's original and records it; the staged file is
    /// gone afterwards either way. `then` adds rows in the same transaction.
    mutating func attach(
        path: String, staged copy: AtomicFile.Temporary, role: ResourceRole, mime: String, to asset: Int64,
        into report: inout ImportReport, then: ((any CatalogConnection, Int64) throws -> Void)? = nil
    ) {
        defer { unlink(copy.url.path) }
        do {
            let source = URL(fileURLWithPath: path)
            var published: URL?
            do {
                let added: Bool = try library.catalog.write { db in
                    if try ResourceRecord.find(asset: asset, role: role, sha256: copy.sha256, db) != nil { return false }
                    // Beside the asset's own original, under its own name.
                    guard let primary = try ResourceRecord.fetchPrimary(asset: asset, db) else {
                        throw LibraryError.assetNotFound("\(asset) with a still or movie to attach \(source.lastPathComponent) to")
                    }
                    let folder = try library.file(primary.path, of: asset).deletingLastPathComponent()
                    let url = try library.publishOriginal(copy, to: folder.appendingPathComponent(source.lastPathComponent), db)
                    published = url
                    var record = ResourceRecord(
                        id: nil, assetId: asset, role: role, path: library.relative(url), sha256: copy.sha256, bytes: copy.bytes,
                        mime: mime, derivedFrom: nil, originalName: source.lastPathComponent,
                        sourceDir: sourceFolder(of: path), addedAt: utcNow(), crc32: copy.crc32)
                    try db.insert(&record)
                    try then?(db, record.id!)
                    return true
                }
                if added {
                    report.imported += 1
                    report.attached += 1
                    touchedAssets.insert(asset)
                } else {
                    report.duplicates += 1
                }
                fileOutcomes[path] = ImportedFile(path: path, outcome: added ? .attached : .duplicate, asset: asset)
            } catch {
                if let published { unlink(published.path) }
                throw error
            }
        } catch {
            report.errors.append(FileProblem(path: path, message: MediaAnalyzer.describe(error)))
        }
    }

    /// The asset a still or movie named `stem.*` in `folder` went to: in this import, else
    /// in the library (by the folder it was imported from).
    func findAsset(folder: String, stem: String) -> Int64? {
        let key = stem.lowercased()
        if let hit = stems[folder]?[key] { return hit.asset }
        let candidates = (try? library.catalog.read { db in
            try ResourceRecord.fetchPrimaries(importedFrom: folder, db)
        }) ?? []
        return candidates.first { PairingRules.stem($0.originalName ?? "") == key }?.assetId
    }
}
