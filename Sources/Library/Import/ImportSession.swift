import Codecs
import Containers
import Foundation
import GRDB

/// The committing half of one import: copies originals in, writes catalog rows, pairs
/// Live Photos and attaches sidecars. Used from one thread.
struct ImportSession {
    let library: PhotoLibrary
    private var pool: DatabasePool { library.catalog.pool }
    /// For sidecars: folder → lower-cased stem → the asset a still or movie of that name
    /// went to in this import (new or already there). Stills win over movies.
    private var stems: [String: [String: (asset: Int64, still: Bool)]] = [:]
    private(set) var touchedAssets = Set<Int64>()

    init(library: PhotoLibrary) {
        self.library = library
    }

    enum Outcome {
        case imported(asset: Int64, createdAsset: Bool, paired: Bool)
        case duplicate(asset: Int64)
    }

    // MARK: Photos and movies

    mutating func commitMedia(_ a: MediaAnalysis, into report: inout ImportReport) {
        do {
            let outcome = try commitMediaOrThrow(a)
            record(outcome, for: a, into: &report)
        } catch {
            report.errors.append(FileProblem(path: a.path, message: MediaAnalyzer.describe(error)))
        }
    }

    /// A file the analysis found already in the library: a duplicate, remembered for the
    /// sidecars of this import.
    mutating func recordKnown(path: String, sha256: String, isStill: Bool, into report: inout ImportReport) {
        guard let asset = try? pool.read({ db in try Self.assetHolding(sha256: sha256, db) }) else {
            report.errors.append(FileProblem(path: path, message: "camlib internal error: a known file is missing from the catalog"))
            return
        }
        report.duplicates += 1
        remember(path: path, asset: asset, isStill: isStill)
    }

    private mutating func remember(path: String, asset: Int64, isStill: Bool) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
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
        case .duplicate(let id):
            report.duplicates += 1
            asset = id
        }
        remember(path: a.path, asset: asset, isStill: a.format.isStill)
    }

    private func commitMediaOrThrow(_ a: MediaAnalysis) throws -> Outcome {
        let source = URL(fileURLWithPath: a.path)
        // Staged files that were not published (a duplicate, an error) go; no-ops otherwise.
        defer { AnalysisOutcome.analyzed(a).discardStagedFiles() }
        var published: [URL] = []
        do {
            return try pool.write { db in
                if let existing = try Self.assetHolding(sha256: a.sha256, db) { return .duplicate(asset: existing) }
                // Files first, rows after: a crash in between leaves an unlisted file,
                // never a row naming a missing one.
                let destination = library.originals
                    .appendingPathComponent(Self.datedFolder(a.metadata.capturedAt))
                    .appendingPathComponent(source.lastPathComponent)
                let original = try AtomicFile.publish(URL(fileURLWithPath: a.stagedCopy), to: destination)
                published.append(original)
                var thumbnailURL: URL?
                if let t = a.thumbnail {
                    let url = try publishDerived(URL(fileURLWithPath: t.temporaryPath), named: a.sha256, ext: "jpg")
                    published.append(url)
                    thumbnailURL = url
                }
                var auxURLs: [URL?] = []
                var usedNames = Set<String>()
                for aux in a.auxiliaryImages {
                    guard let temporary = aux.temporaryPath else {
                        auxURLs.append(nil)
                        continue
                    }
                    let url = try publishAuxiliary(URL(fileURLWithPath: temporary), of: a.sha256, type: aux.type, used: &usedNames)
                    published.append(url)
                    auxURLs.append(url)
                }
                var movieURL: URL?
                var posterURL: URL?
                if let movie = a.embeddedMovie {
                    let url = try publishMotionMovie(URL(fileURLWithPath: movie.temporaryPath), of: a.sha256, format: movie.format)
                    published.append(url)
                    movieURL = url
                    if let t = movie.thumbnail {
                        // Named after the still: two stills may embed the same movie.
                        posterURL = try publishDerived(URL(fileURLWithPath: t.temporaryPath), named: "\(a.sha256)-motion", ext: "jpg")
                        published.append(posterURL!)
                    }
                }
                let outcome = try insert(a, original: original, thumbnail: thumbnailURL, db)
                if case .imported(let asset, _, _) = outcome {
                    try insertExtras(a, asset: asset, auxURLs: auxURLs, movie: movieURL, poster: posterURL, db)
                }
                return outcome
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }

    /// Rows for a new still or movie: joins its Live Photo partner's asset when there is
    /// one, else becomes an asset of its own.
    private func insert(_ a: MediaAnalysis, original: URL, thumbnail: URL?, _ db: Database) throws -> Outcome {
        let now = utcNow()
        let isStill = a.format.isStill
        let sourceURL = URL(fileURLWithPath: a.path)
        // A Motion Photo carries its own movie; it is never half of a Live Photo.
        let partner = a.embeddedMovie == nil ? try Self.findPartner(for: a, db) : nil

        var assetID: Int64
        var created = false
        if let partner {
            assetID = partner.asset
            try db.execute(sql: "UPDATE asset SET kind = 'live' WHERE id = ?", arguments: [assetID])
            if isStill {
                try db.execute(sql: "UPDATE resource SET role = 'pairedVideo' WHERE id = ?", arguments: [partner.resource])
            }
        } else {
            var asset = AssetRecord(id: nil, kind: isStill ? .photo : .video, importedAt: now)
            try asset.insert(db)
            assetID = asset.id!
            created = true
        }
        let role: ResourceRole = isStill ? .photo : (partner == nil ? .video : .pairedVideo)
        var resource = ResourceRecord(
            id: nil, assetId: assetID, role: role, path: library.relative(original), sha256: a.sha256, bytes: a.bytes,
            mime: a.format.mimeType, derivedFrom: nil, originalName: sourceURL.lastPathComponent,
            sourceDir: sourceURL.deletingLastPathComponent().path, addedAt: now)
        try resource.insert(db)
        let resourceID = resource.id!
        try MetadataRecord(a, resourceID: resourceID).insert(db)
        if let thumbnail, let t = a.thumbnail {
            var thumb = ResourceRecord(
                id: nil, assetId: assetID, role: .thumbnail, path: library.relative(thumbnail), sha256: t.sha256,
                bytes: t.bytes, mime: "image/jpeg", derivedFrom: resourceID, originalName: nil, sourceDir: nil, addedAt: now)
            try thumb.insert(db)
        }
        if let partner {
            try PairingRecord(
                assetId: assetID, photoResourceId: isStill ? resourceID : partner.resource,
                videoResourceId: isStill ? partner.resource : resourceID, rule: partner.rule,
                contentIdentifier: partner.rule == .contentIdentifier ? a.metadata.contentIdentifier : nil,
                confidence: partner.confidence, pairedAt: now
            ).insert(db)
        }
        return .imported(asset: assetID, createdAsset: created, paired: partner != nil)
    }

    /// Rows for a still's auxiliary images and embedded movie, after the still's own.
    private func insertExtras(
        _ a: MediaAnalysis, asset: Int64, auxURLs: [URL?], movie movieURL: URL?, poster: URL?, _ db: Database
    ) throws {
        guard !a.auxiliaryImages.isEmpty || a.embeddedMovie != nil else { return }
        guard let still = try Int64.fetchOne(
            db, sql: "SELECT id FROM resource WHERE asset_id = ? AND role = 'photo' AND sha256 = ?", arguments: [asset, a.sha256])
        else { return }
        let now = utcNow()
        for (aux, url) in zip(a.auxiliaryImages, auxURLs) {
            var record = AuxImageRecord(
                id: nil, assetId: asset, resourceId: still, type: aux.type, urn: aux.urn, source: aux.source, width: aux.width,
                height: aux.height, bitDepth: aux.bitDepth, channels: aux.channels, path: url.map(library.relative),
                sha256: url == nil ? nil : aux.sha256, bytes: url == nil ? nil : aux.bytes, encoding: aux.encoding.json,
                problem: aux.problem, addedAt: now)
            try record.insert(db)
        }
        if let movie = a.embeddedMovie, let url = movieURL {
            try db.execute(sql: "UPDATE asset SET kind = 'motion' WHERE id = ?", arguments: [asset])
            var resource = ResourceRecord(
                id: nil, assetId: asset, role: .pairedVideo, path: library.relative(url), sha256: movie.sha256, bytes: movie.bytes,
                mime: movie.format.mimeType, derivedFrom: still, originalName: nil, sourceDir: nil, addedAt: now)
            try resource.insert(db)
            var analysis = a
            analysis.format = movie.format
            analysis.metadata = movie.metadata
            analysis.warnings = movie.note.map { [$0] } ?? []
            try MetadataRecord(analysis, resourceID: resource.id!).insert(db)
            if let poster, let t = movie.thumbnail {
                var thumb = ResourceRecord(
                    id: nil, assetId: asset, role: .thumbnail, path: library.relative(poster), sha256: t.sha256, bytes: t.bytes,
                    mime: "image/jpeg", derivedFrom: resource.id!, originalName: nil, sourceDir: nil, addedAt: now)
                try thumb.insert(db)
            }
            try EmbeddedMovieRecord(
                resourceId: resource.id!, stillResourceId: still, offset: movie.offset, length: movie.bytes,
                declaredBy: movie.declaredBy, note: movie.note
            ).insert(db)
        }
    }

    /// `derived/aux/ab/<sha256 of the still>/<type>.png`; a second image of the same type
    /// becomes `<type>-2.png`.
    private func publishAuxiliary(_ temporary: URL, of stillSHA: String, type: AuxiliaryImageType, used: inout Set<String>) throws -> URL {
        var name = type.rawValue
        var n = 2
        while used.contains(name) {
            name = "\(type.rawValue)-\(n)"
            n += 1
        }
        used.insert(name)
        let folder = library.derived.appendingPathComponent("aux/\(stillSHA.prefix(2))/\(stillSHA)")
        return try moveDerived(temporary, to: folder.appendingPathComponent("\(name).png"))
    }

    /// `derived/motion/ab/<sha256 of the still>.mp4` (or .mov): a Motion Photo's movie
    /// as its own file.
    private func publishMotionMovie(_ temporary: URL, of stillSHA: String, format: MediaFormat) throws -> URL {
        let folder = library.derived.appendingPathComponent("motion/\(stillSHA.prefix(2))")
        return try moveDerived(temporary, to: folder.appendingPathComponent("\(stillSHA).\(format == .quicktime ? "mov" : "mp4")"))
    }

    /// Derived files are named by the sha256 of what they show, so rebuilding one
    /// replaces it in place (rename, not link).
    private func publishDerived(_ temporary: URL, named sha256: String, ext: String) throws -> URL {
        let folder = library.thumbnails.appendingPathComponent(String(sha256.prefix(2)))
        return try moveDerived(temporary, to: folder.appendingPathComponent("\(sha256).\(ext)"))
    }

    /// Renames a fsynced temporary file over a derived one (derived files can always be
    /// rebuilt, so replacing is fine) and fsyncs the folder.
    private func moveDerived(_ temporary: URL, to destination: URL) throws -> URL {
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard rename(temporary.path, destination.path) == 0 else {
            throw LibraryError.io(path: destination.path, operation: "rename", errno: errno)
        }
        try AtomicFile.syncDirectory(folder)
        return destination
    }

    static func datedFolder(_ time: CaptureTime?) -> String {
        guard let t = time else { return "undated" }
        return String(format: "%04d/%02d", t.year, t.month)
    }

    static func assetHolding(sha256: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(
            db, sql: "SELECT asset_id FROM resource WHERE sha256 = ? AND role IN ('photo', 'pairedVideo', 'video') AND derived_from IS NULL",
            arguments: [sha256])
    }

    // MARK: Live Photo pairing

    struct Partner {
        var asset: Int64
        var resource: Int64
        var rule: PairingRule
        var confidence: Double
    }

    /// The unpaired movie for a new still, or the unpaired still for a new movie.
    static func findPartner(for a: MediaAnalysis, _ db: Database) throws -> Partner? {
        let isStill = a.format.isStill
        // Unpaired halves: a still alone in a 'photo' asset, a movie alone in a 'video' one.
        let wantRole = isStill ? "video" : "photo"
        let myTime = a.metadata.capturedAt
        if let identifier = a.metadata.contentIdentifier {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.asset_id, m.captured_at FROM resource r
                    JOIN metadata m ON m.resource_id = r.id
                    JOIN asset a ON a.id = r.asset_id
                    WHERE m.content_identifier = ? AND r.role = ? AND a.kind = ?
                    ORDER BY r.id
                    """, arguments: [identifier, wantRole, wantRole])
            // Several candidates (the same movie in two encodings): the closest in time.
            let best = rows.min { lhs, rhs in
                distance(myTime, lhs["captured_at"]) < distance(myTime, rhs["captured_at"])
            }
            guard let best else { return nil }
            return Partner(asset: best["asset_id"], resource: best["id"], rule: .contentIdentifier, confidence: 1)
        }
        let source = URL(fileURLWithPath: a.path)
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT r.id, r.asset_id, r.original_name, m.captured_at, m.duration FROM resource r
                JOIN metadata m ON m.resource_id = r.id
                JOIN asset a ON a.id = r.asset_id
                WHERE r.source_dir = ? AND r.role = ? AND a.kind = ? AND m.content_identifier IS NULL
                ORDER BY r.id
                """, arguments: [source.deletingLastPathComponent().path, wantRole, wantRole])
        var best: Partner?
        for row in rows {
            let otherName: String = row["original_name"]
            let otherTime = (row["captured_at"] as String?).flatMap(CaptureTime.init(iso8601:))
            let confidence =
                isStill
                ? PairingRules.stemConfidence(
                    stillName: source.lastPathComponent, stillTime: myTime, movieName: otherName, movieTime: otherTime,
                    movieDuration: row["duration"])
                : PairingRules.stemConfidence(
                    stillName: otherName, stillTime: otherTime, movieName: source.lastPathComponent, movieTime: myTime,
                    movieDuration: a.metadata.durationSeconds)
            if let confidence, confidence > (best?.confidence ?? 0) {
                best = Partner(asset: row["asset_id"], resource: row["id"], rule: .stem, confidence: confidence)
            }
        }
        return best
    }

    private static func distance(_ a: CaptureTime?, _ b: String?) -> Double {
        guard let a, let b = b.flatMap(CaptureTime.init(iso8601:)) else { return .infinity }
        return abs(a.secondsSinceEpoch - b.secondsSinceEpoch)
    }

    // MARK: Sidecars and rendered edits

    /// `IMG_E1234.*` beside an `IMG_1234.*` of this import or of the library.
    func isRenderCandidate(_ path: String) -> Bool {
        let url = URL(fileURLWithPath: path)
        return AppleSidecarName.renderTarget(stem: url.deletingPathExtension().lastPathComponent) != nil
    }

    /// Attaches `IMG_E1234.*` to the asset `IMG_1234` as its rendered edit; imports it as an
    /// asset of its own when there is no such asset.
    mutating func commitRender(_ a: MediaAnalysis, into report: inout ImportReport) {
        let url = URL(fileURLWithPath: a.path)
        guard let target = AppleSidecarName.renderTarget(stem: url.deletingPathExtension().lastPathComponent),
            let asset = findAsset(folder: url.deletingLastPathComponent().path, stem: target)
        else {
            commitMedia(a, into: &report)
            return
        }
        if let t = a.thumbnail { unlink(t.temporaryPath) }
        let staged = AtomicFile.Temporary(url: URL(fileURLWithPath: a.stagedCopy), sha256: a.sha256, bytes: a.bytes)
        attach(path: a.path, staged: staged, role: a.format.isStill ? .renderedPhoto : .renderedVideo, mime: a.format.mimeType,
               to: asset, into: &report) { db, resource in
            // Apple's render belongs to Apple's current edit, when its .AAE came first.
            if let adjustment = try Self.appleEdit(of: asset, db) {
                try db.execute(sql: "INSERT INTO adjustment_render (adjustment_id, resource_id) VALUES (?, ?)", arguments: [adjustment, resource])
            }
        }
    }

    /// The asset's Apple Photos edit (from `IMG_1234.AAE`, not the camera's `IMG_O1234.AAE`).
    static func appleEdit(of asset: Int64, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(
            db,
            sql: """
                SELECT d.id FROM adjustment d JOIN resource r ON r.id = d.sidecar_resource_id
                WHERE d.asset_id = ? AND d.origin = 'apple' AND r.original_name NOT LIKE 'IMG\\_O%' ESCAPE '\\'
                ORDER BY d.id DESC LIMIT 1
                """, arguments: [asset])
    }

    /// Attaches `IMG_1234.AAE` / `IMG_O1234.AAE` to the asset `IMG_1234`.
    mutating func commitSidecar(_ path: String, into report: inout ImportReport) {
        let url = URL(fileURLWithPath: path)
        let target = AppleSidecarName.adjustmentTarget(stem: url.deletingPathExtension().lastPathComponent)
        guard let asset = findAsset(folder: url.deletingLastPathComponent().path, stem: target) else {
            report.skipped += 1
            report.skippedFiles.append(
                FileProblem(path: path, message: "adjustment sidecar without its photo: no \(target).* in this folder or the library"))
            return
        }
        if let header = try? FileReading.prefix(of: path, count: 512), MediaFormat.sniff(header) != .appleAdjustment {
            report.warnings.append(FileProblem(path: path, message: "does not look like an Apple adjustment plist; kept as is"))
        }
        // Photos' own edit (IMG_1234.AAE) is the asset's current version, as on the phone;
        // the camera's (IMG_O1234.AAE) is history.
        let isCameraAdjustment = AppleSidecarName.adjustmentTarget(stem: url.deletingPathExtension().lastPathComponent)
            != url.deletingPathExtension().lastPathComponent
        var adjustment: AppleAdjustment?
        do {
            adjustment = try AppleAdjustment(plist: [UInt8](Data(contentsOf: url)))
        } catch {
            report.warnings.append(FileProblem(path: path, message: "\(error); kept as a sidecar, not as an edit"))
        }
        let library = self.library
        do {
            let staged = try AtomicFile.copyToTemporary(from: url, in: library.temporary, readOnly: true)
            attach(path: path, staged: staged, role: .adjustmentSidecar, mime: MediaFormat.appleAdjustment.mimeType, to: asset, into: &report) {
                db, sidecar in
                guard let adjustment else { return }
                let data = adjustment.decodedJSON ?? Data(adjustment.data).base64EncodedString()
                try db.execute(
                    sql: """
                        INSERT INTO adjustment (asset_id, format_identifier, format_version, data, origin, sidecar_resource_id, created_at)
                        VALUES (?, ?, ?, ?, 'apple', ?, ?)
                        """, arguments: [asset, adjustment.formatIdentifier, adjustment.formatVersion, data, sidecar, utcNow()])
                let id = db.lastInsertedRowID
                guard !isCameraAdjustment else { return }
                // Apple's renders already attached (IMG_E1234.*) are this edit's.
                try db.execute(
                    sql: """
                        INSERT INTO adjustment_render (adjustment_id, resource_id)
                        SELECT ?, r.id FROM resource r
                        WHERE r.asset_id = ? AND r.role IN ('renderedPhoto', 'renderedVideo') AND r.original_name IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
                        """, arguments: [id, asset])
                try library.setCurrent(asset: asset, adjustment: id, db)
            }
        } catch {
            report.errors.append(FileProblem(path: path, message: MediaAnalyzer.describe(error)))
        }
    }

    /// Restores camlib's edit history from an exported `.camlib.json`: the adjustments of
    /// the asset whose original has the sidecar's sha256, its current one current again,
    /// linked to the render imported beside it.
    mutating func commitHistory(_ path: String, into report: inout ImportReport) {
        do {
            let history = try JSONDecoder().decode(
                Exporter.HistorySidecar.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            guard history.format == "org.camlib.history", history.version == 1 else {
                throw MediaAnalyzer.Failure(reason: "a camlib history of format \(history.format) \(history.version), which this camlib does not read")
            }
            let (restored, asset): (Int, Int64) = try pool.write { db in
                guard let asset = try Self.assetHolding(sha256: history.original, db) else {
                    throw MediaAnalyzer.Failure(reason: "its original (sha256 \(history.original.prefix(12))…) is not in the library; import it with the sidecar")
                }
                var added = 0
                var current: Int64?
                for a in history.adjustments {
                    let known = try Int64.fetchOne(
                        db, sql: "SELECT id FROM adjustment WHERE asset_id = ? AND format_identifier = ? AND data = ? AND created_at = ?",
                        arguments: [asset, a.formatIdentifier, a.data, a.createdAt])
                    var id = known
                    if id == nil {
                        try db.execute(
                            sql: """
                                INSERT INTO adjustment (asset_id, format_identifier, format_version, data, origin, created_at)
                                VALUES (?, ?, ?, ?, 'camlib', ?)
                                """, arguments: [asset, a.formatIdentifier, a.formatVersion, a.data, a.createdAt])
                        id = db.lastInsertedRowID
                        added += 1
                    }
                    if a.current { current = id }
                }
                if let current {
                    try db.execute(
                        sql: """
                            INSERT INTO adjustment_render (adjustment_id, resource_id)
                            SELECT ?, r.id FROM resource r
                            WHERE r.asset_id = ? AND r.role IN ('renderedPhoto', 'renderedVideo')
                              AND NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
                            """, arguments: [current, asset])
                    try library.setCurrent(asset: asset, adjustment: current, db)
                }
                touchedAssets.insert(asset)
                return (added, asset)
            }
            // Images the current version attached: its render's aux images again.
            try library.listAttachedImages(of: asset)
            if restored > 0 {
                report.imported += 1
                report.attached += 1
            } else {
                report.duplicates += 1
            }
        } catch {
            report.errors.append(FileProblem(path: path, message: "cannot restore the edit history: \(MediaAnalyzer.describe(error))"))
        }
    }

    /// Links a staged copy beside the asset's original and records it; the staged file is
    /// gone afterwards either way.
    private mutating func attach(
        path: String, staged copy: AtomicFile.Temporary, role: ResourceRole, mime: String, to asset: Int64,
        into report: inout ImportReport, then: ((Database, Int64) throws -> Void)? = nil
    ) {
        defer { unlink(copy.url.path) }
        do {
            let source = URL(fileURLWithPath: path)
            var published: URL?
            do {
                let added: Bool = try pool.write { db in
                    let exists = try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM resource WHERE asset_id = ? AND role = ? AND sha256 = ?",
                        arguments: [asset, role, copy.sha256]) ?? false
                    if exists { return false }
                    // Beside the asset's own original, under its own name.
                    guard let primary = try String.fetchOne(
                        db,
                        sql: "SELECT path FROM resource WHERE asset_id = ? AND role IN ('photo', 'video', 'pairedVideo') ORDER BY role = 'photo' DESC LIMIT 1",
                        arguments: [asset])
                    else { throw LibraryError.assetNotFound("\(asset) with a still or movie to attach \(source.lastPathComponent) to") }
                    let folder = library.absolute(primary).deletingLastPathComponent()
                    let url = try AtomicFile.publish(copy.url, to: folder.appendingPathComponent(source.lastPathComponent))
                    published = url
                    var record = ResourceRecord(
                        id: nil, assetId: asset, role: role, path: library.relative(url), sha256: copy.sha256, bytes: copy.bytes,
                        mime: mime, derivedFrom: nil, originalName: source.lastPathComponent,
                        sourceDir: source.deletingLastPathComponent().path, addedAt: utcNow())
                    try record.insert(db)
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
    private func findAsset(folder: String, stem: String) -> Int64? {
        let key = stem.lowercased()
        if let hit = stems[folder]?[key] { return hit.asset }
        let rows = (try? pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT asset_id, original_name, role FROM resource
                    WHERE source_dir = ? AND role IN ('photo', 'video', 'pairedVideo')
                    ORDER BY role = 'photo' DESC, id
                    """, arguments: [folder])
        }) ?? []
        for row in rows where PairingRules.stem(row["original_name"] as String? ?? "") == key {
            return row["asset_id"]
        }
        return nil
    }
}

extension MetadataRecord {
    init(_ a: MediaAnalysis, resourceID: Int64) {
        let m = a.metadata
        self.init(
            resourceId: resourceID, format: a.format.rawValue, capturedAt: m.capturedAt?.iso8601,
            utcOffsetMinutes: m.capturedAt?.utcOffsetMinutes, make: m.make, model: m.model, software: m.software,
            lensMake: m.lensMake, lensModel: m.lensModel, latitude: m.location?.latitude, longitude: m.location?.longitude,
            altitude: m.location?.altitude, width: m.width, height: m.height, orientation: m.orientation,
            duration: m.durationSeconds, videoCodec: m.videoCodec, audioCodec: m.audioCodec, frameRate: m.frameRate,
            contentIdentifier: m.contentIdentifier, livePhotoVideoIndex: m.livePhotoVideoIndex, stillImageTime: m.stillImageTime,
            warnings: a.warnings.isEmpty ? nil : a.warnings.joined(separator: "\n"))
    }
}
