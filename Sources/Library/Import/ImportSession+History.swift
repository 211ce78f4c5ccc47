import Crypto
import Foundation

/// camlib's own edit history, as `camlib export` writes it beside an asset
/// (`NAME.camlib.json`), read back into the library.
extension ImportSession {
    /// Restores the adjustments of the asset whose original has the sidecar's sha256, its
    /// current one current again, linked to the render imported beside it.
    mutating func commitHistory(_ path: String, into report: inout ImportReport) {
        do {
            let history = try JSONDecoder().decode(
                Exporter.HistorySidecar.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            guard history.format == "org.camlib.history", history.version == 1 else {
                throw MediaAnalyzer.Failure(reason: "a camlib history of format \(history.format) \(history.version), which this camlib does not read")
            }
            let holder = try library.catalog.read { db in try ResourceRecord.assetHolding(original: history.original, db) }
            guard let asset = holder else {
                throw MediaAnalyzer.Failure(reason: "its original (sha256 \(history.original.prefix(12))…) is not in the library; import it with the sidecar")
            }
            // Apple's edit sidecars it carries (Apple's edit was not current when exported):
            // attached as they were, as history.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            for sidecar in history.appleSidecars ?? [] {
                let name = URL(fileURLWithPath: sidecar.name).lastPathComponent  // a name only, never a path
                guard let bytes = Data(base64Encoded: sidecar.data), SHA256.hash(data: bytes).hexString == sidecar.sha256 else {
                    report.errors.append(FileProblem(path: path, message: "the Apple sidecar \(name) it carries is damaged (its bytes do not match its sha256); not restored"))
                    continue
                }
                let staged = try AtomicFile.writeTemporary([UInt8](bytes), in: library.temporary, readOnly: true)
                attachAppleSidecar(path: folder.appendingPathComponent(name).path, staged: staged, to: asset, makeCurrent: false, into: &report)
            }
            let restored: Int = try library.catalog.write { db in
                var added = 0
                var current: Int64?
                for a in history.adjustments {
                    var id = try AdjustmentRecord.find(
                        asset: asset, formatIdentifier: a.formatIdentifier, data: a.data, createdAt: a.createdAt, db)
                    if id == nil {
                        var record = AdjustmentRecord(
                            id: nil, assetId: asset, formatIdentifier: a.formatIdentifier, formatVersion: a.formatVersion, data: a.data,
                            extendsId: nil, origin: .camlib, sidecarResourceId: nil, createdAt: a.createdAt)
                        try db.insert(&record)
                        id = record.id
                        added += 1
                    }
                    if a.current { current = id }
                }
                if let current {
                    if let renders = history.renders {
                        // Exactly the renders exported beside it, taken from whatever
                        // claimed them first (an Apple sidecar imported with them).
                        try AdjustmentRenderRecord.link(renders: renders, of: asset, to: current, db)
                    } else {
                        try AdjustmentRenderRecord.claimUnlinkedRenders(of: asset, for: current, importedOnly: false, db)
                    }
                    try AssetVersionRecord.setCurrent(asset: asset, adjustment: current, db)
                } else if history.originalIsCurrent == true {
                    try AssetVersionRecord.setCurrent(asset: asset, adjustment: nil, db)
                }
                return added
            }
            touchedAssets.insert(asset)
            // Images the current version attached: its render's aux images again (not
            // in a rehearsal, where the render beside it was not placed).
            if library.rehearsal == nil { try library.listAttachedImages(of: asset) }
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
}
