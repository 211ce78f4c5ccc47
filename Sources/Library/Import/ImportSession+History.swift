import Foundation
import GRDB

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
            let (restored, asset): (Int, Int64) = try library.catalog.write { db in
                guard let asset = try ResourceRecord.assetHolding(original: history.original, db) else {
                    throw MediaAnalyzer.Failure(reason: "its original (sha256 \(history.original.prefix(12))…) is not in the library; import it with the sidecar")
                }
                var added = 0
                var current: Int64?
                for a in history.adjustments {
                    var id = try AdjustmentRecord.find(
                        asset: asset, formatIdentifier: a.formatIdentifier, data: a.data, createdAt: a.createdAt, db)
                    if id == nil {
                        var record = AdjustmentRecord(
                            id: nil, assetId: asset, formatIdentifier: a.formatIdentifier, formatVersion: a.formatVersion, data: a.data,
                            extendsId: nil, origin: .camlib, sidecarResourceId: nil, createdAt: a.createdAt)
                        try record.insert(db)
                        id = record.id
                        added += 1
                    }
                    if a.current { current = id }
                }
                if let current {
                    try AdjustmentRenderRecord.claimUnlinkedRenders(of: asset, for: current, importedOnly: false, db)
                    try AssetVersionRecord.setCurrent(asset: asset, adjustment: current, db)
                }
                touchedAssets.insert(asset)
                return (added, asset)
            }
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
