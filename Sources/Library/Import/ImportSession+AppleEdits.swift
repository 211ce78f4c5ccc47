import Codecs
import Containers
import Foundation

/// Apple Photos' files beside a photo: its edit (`IMG_1234.AAE`), the camera's
/// adjustments (`IMG_O1234.AAE`) and the rendered edit (`IMG_E1234.*`), attached to the
/// asset `IMG_1234` of this import or of the library.
extension ImportSession {
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
            let asset = findAsset(folder: sourceFolder(of: url.path), stem: target)
        else {
            commitMedia(a, into: &report)
            return
        }
        // A render is kept as it is: the thumbnail and aux images its analysis made go.
        defer { AnalysisOutcome.analyzed(a).discardStagedFiles() }
        let staged = AtomicFile.Temporary(url: URL(fileURLWithPath: a.stagedCopy), sha256: a.sha256, bytes: a.bytes, crc32: a.crc32)
        if library.rehearsal == nil {
            do {
                try AtomicFile.makeDurable([a.stagedCopy])
            } catch {
                report.errors.append(FileProblem(path: a.path, message: MediaAnalyzer.describe(error)))
                return
            }
        }
        // The edited movie is what the gallery plays: its browsers' copy made ahead.
        let codec = a.format.isStill ? nil : a.metadata.videoCodec
        let proxyBatch = library.rehearsal == nil && codec != nil && codec != "h264" ? jobBatch : nil
        attach(path: a.path, staged: staged, role: a.format.isStill ? .renderedPhoto : .renderedVideo, mime: a.format.mimeType,
               to: asset, into: &report) { db, resource in
            // Apple's render belongs to Apple's current edit, when its .AAE came first.
            if let adjustment = try AdjustmentRecord.appleEdit(of: asset, db) {
                try db.insert(AdjustmentRenderRecord(adjustmentId: adjustment, resourceId: resource))
            }
            if let proxyBatch {
                _ = try JobRecord.enqueue([.derived(.proxy, asset: asset, resource: resource, priority: Self.proxyPriority)], batch: proxyBatch, db)
            }
        }
    }

    /// Attaches `IMG_1234.AAE` / `IMG_O1234.AAE` to the asset `IMG_1234`.
    mutating func commitSidecar(_ path: String, into report: inout ImportReport) {
        let url = URL(fileURLWithPath: path)
        let target = AppleSidecarName.adjustmentTarget(stem: url.deletingPathExtension().lastPathComponent)
        guard let asset = findAsset(folder: sourceFolder(of: url.path), stem: target) else {
            report.skipped += 1
            report.skippedFiles.append(
                FileProblem(path: path, message: "adjustment sidecar without its photo: no \(target).* in this folder or the library"))
            return
        }
        if let header = try? FileReading.prefix(of: path, count: 512), MediaFormat.sniff(header) != .appleAdjustment {
            report.warnings.append(FileProblem(path: path, message: "does not look like an Apple adjustment plist; kept as is"))
        }
        do {
            let staged = try AtomicFile.copyToTemporary(from: url, in: library.temporary, readOnly: true)
            // Photos' own edit (IMG_1234.AAE) is the asset's current version, as on the phone;
            // the camera's (IMG_O1234.AAE) is history.
            let isCameraAdjustment = target != url.deletingPathExtension().lastPathComponent
            attachAppleSidecar(path: path, staged: staged, to: asset, makeCurrent: !isCameraAdjustment, into: &report)
        } catch {
            report.errors.append(FileProblem(path: path, message: MediaAnalyzer.describe(error)))
        }
    }

    /// Attaches an Apple sidecar, staged in the library, to `asset` with the adjustment it
    /// holds; with `makeCurrent`, that adjustment becomes the asset's current version and
    /// takes the renders imported as files that belong to no adjustment yet.
    mutating func attachAppleSidecar(path: String, staged: AtomicFile.Temporary, to asset: Int64, makeCurrent: Bool, into report: inout ImportReport) {
        var adjustment: AppleAdjustment?
        do {
            adjustment = try AppleAdjustment(plist: [UInt8](Data(contentsOf: staged.url)))
        } catch {
            report.warnings.append(FileProblem(path: path, message: "\(error); kept as a sidecar, not as an edit"))
        }
        attach(path: path, staged: staged, role: .adjustmentSidecar, mime: MediaFormat.appleAdjustment.mimeType, to: asset, into: &report) {
            db, sidecar in
            guard let adjustment else { return }
            var record = AdjustmentRecord(
                id: nil, assetId: asset, formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion,
                data: adjustment.decodedJSON ?? Data(adjustment.data).base64EncodedString(), extendsId: nil, origin: .apple,
                sidecarResourceId: sidecar, createdAt: adjustment.timestamp.map(catalogTime) ?? utcNow())  // when the edit was made
            try db.insert(&record)
            guard makeCurrent else { return }
            // Apple's renders already attached (IMG_E1234.*) are this edit's.
            try AdjustmentRenderRecord.claimUnlinkedRenders(of: asset, for: record.id!, importedOnly: true, db)
            try AssetVersionRecord.setCurrent(asset: asset, adjustment: record.id!, db)
        }
    }
}
