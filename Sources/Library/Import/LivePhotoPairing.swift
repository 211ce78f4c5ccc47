import Containers
import Foundation

/// Finds the other half of a Live Photo for a still or movie being imported, among the
/// library's halves still waiting for theirs, by the rules of ``PairingRules``: the same
/// content identifier first; only when the new file has none, the same folder and name
/// stem with close capture times.
enum LivePhotoPairing {
    struct Partner {
        var asset: Int64
        var resource: Int64
        var rule: PairingRule
        var confidence: Double
    }

    /// The unpaired movie for a new still, or the unpaired still for a new movie; `folder`
    /// is the one the new file is imported from.
    static func partner(for a: MediaAnalysis, from folder: String, _ db: any CatalogConnection) throws -> Partner? {
        let isStill = a.format.isStill
        let wanted: ResourceRole = isStill ? .video : .photo
        let myTime = a.metadata.capturedAt
        if let identifier = a.metadata.contentIdentifier {
            let halves = try UnpairedHalf.carrying(contentIdentifier: identifier, role: wanted, db)
            // Several candidates (the same movie in two encodings): the closest in time.
            guard let best = halves.min(by: { distance(myTime, $0.capturedAt) < distance(myTime, $1.capturedAt) }) else { return nil }
            return Partner(asset: best.assetId, resource: best.id, rule: .contentIdentifier, confidence: 1)
        }
        let source = URL(fileURLWithPath: a.path)
        var best: Partner?
        for half in try UnpairedHalf.withoutIdentifier(importedFrom: folder, role: wanted, db) {
            let otherName = half.originalName ?? ""
            let otherTime = half.capturedAt.flatMap(CaptureTime.init(iso8601:))
            let confidence =
                isStill
                ? PairingRules.stemConfidence(
                    stillName: source.lastPathComponent, stillTime: myTime, movieName: otherName, movieTime: otherTime,
                    movieDuration: half.duration)
                : PairingRules.stemConfidence(
                    stillName: otherName, stillTime: otherTime, movieName: source.lastPathComponent, movieTime: myTime,
                    movieDuration: a.metadata.durationSeconds)
            if let confidence, confidence > (best?.confidence ?? 0) {
                best = Partner(asset: half.assetId, resource: half.id, rule: .stem, confidence: confidence)
            }
        }
        return best
    }

    private static func distance(_ a: CaptureTime?, _ b: String?) -> Double {
        guard let a, let b = b.flatMap(CaptureTime.init(iso8601:)) else { return .infinity }
        return abs(a.secondsSinceEpoch - b.secondsSinceEpoch)
    }
}
