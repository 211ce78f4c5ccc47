import Containers
import Foundation
import GRDB

extension AssetDescription {
    /// The given assets as `--json` describes them, in the given order; ids the catalog
    /// does not hold are left out. Paths come out absolute, under `layout.root`. With
    /// `.originals`, only the asset's facts and its still and movie are read. `trash`:
    /// whether to look for the assets in the trash (a listing of the others need not).
    static func fetchAll(
        _ ids: [Int64], detail: AssetDetail = .full, layout: LibraryLayout, trash: Bool = true, _ db: any CatalogConnection
    ) throws -> [AssetDescription] {
        var out: [Int64: AssetDescription] = [:]
        // Joined as text: URL's path parsing, for hundreds of paths a page, costs more than the SQL.
        let root = layout.root.path.hasSuffix("/") ? layout.root.path : layout.root.path + "/"
        // In chunks, to keep statements few and the memory of a long list flat.
        for start in stride(from: 0, to: ids.count, by: 256) {
            let chunk = IDList(Array(ids[start..<min(start + 256, ids.count)]))
            for overview in try AssetOverviewRecord.fetchAll(ids: chunk, db) {
                out[overview.id] = AssetDescription(overview)
            }
            if trash {
                for (id, since) in try TrashedAssetRecord.trashedAt(assets: chunk, db) { out[id]?.trashedAt = since }
            }
            for (id, place) in try PlaceRecord.names(of: chunk, db) { out[id]?.place = place }
            if detail == .originals {
                for r in try ResourceRecord.fetchPrimaries(assets: chunk, db).sorted(by: { Self.listingOrder($0, $1, [:]) })
                {
                    try confine(r.path, of: r.assetId)
                    out[r.assetId]?.resources.append(
                        Resource(role: r.role, path: root + r.path, sha256: r.sha256, bytes: r.bytes, mime: r.mime, of: nil, originalName: r.originalName, crc32: r.crc32))
                }
                continue
            }
            let files = try ResourceRecord.fetchDescribed(assets: chunk, db)
            // Renders of adjustments that are not current are history, not resources.
            let currentFiles = files.filter(\.isCurrent).map(\.record)
            let current = Set(currentFiles.map { $0.id! })
            let roles = Dictionary(uniqueKeysWithValues: files.map { ($0.record.id!, $0.record.role) })
            for r in currentFiles.sorted(by: { Self.listingOrder($0, $1, roles) }) {
                try confine(r.path, of: r.assetId)
                out[r.assetId]?.resources.append(
                    Resource(
                        role: r.role, path: root + r.path, sha256: r.sha256, bytes: r.bytes,
                        mime: r.mime, of: r.derivedFrom.flatMap { roles[$0] }, originalName: r.originalName, crc32: r.crc32))
            }
            // A Live Photo's movie carries the still's time (any of its files, current or not).
            for file in files where file.record.role == .pairedVideo {
                if let time = file.stillImageTime { out[file.record.assetId]?.stillImageTime = time }
            }
            for (id, marks) in try AssetMarks.fetch(assets: chunk, db) {
                out[id]?.favorite = marks.favorite
                out[id]?.albums = marks.albums
                out[id]?.keywords = marks.keywords
            }
            for (d, isCurrent) in try AdjustmentRecord.fetchAllNotingCurrent(assets: chunk, db) {
                out[d.assetId]?.adjustments.append(
                    Adjustment(
                        formatIdentifier: d.formatIdentifier, formatVersion: d.formatVersion, data: d.data, createdAt: d.createdAt,
                        current: isCurrent))
            }
            for x in try AuxImageRecord.fetchAll(assets: chunk, db) where current.contains(x.resourceId) {
                if let path = x.path { try confine(path, of: x.assetId) }
                var aux = Aux(
                    type: x.type, urn: x.urn, width: x.width, height: x.height, bitDepth: x.bitDepth, path: x.path.map { root + $0 },
                    source: x.source, channels: x.channels, encoding: nil, problem: x.problem)
                if let json = x.encoding { aux.storedEncoding = .json(json) }
                out[x.assetId]?.aux.append(aux)
            }
        }
        return ids.compactMap { out[$0] }
    }

    /// A path the catalog gives for a file of `asset` must stay inside the library: one
    /// that does not (an edited catalog) is refused, never followed or printed as a place
    /// to read.
    private static func confine(_ path: String, of asset: Int64) throws {
        guard LibraryLayout.isConfined(path) else { throw LibraryError.outsideLibrary(asset: asset, path: path) }
    }

    /// Files in the order `resources` lists them: the still, the movie, thumbnails, then
    /// the rest; what was made from the still before what was made from the movie.
    private static func listingOrder(_ a: ResourceRecord, _ b: ResourceRecord, _ roles: [Int64: ResourceRole]) -> Bool {
        func rank(_ role: ResourceRole) -> Int {
            switch role {
            case .photo: 0
            case .pairedVideo, .video: 1
            case .thumbnail: 2
            default: 3
            }
        }
        func source(_ r: ResourceRecord) -> Int {
            guard let from = r.derivedFrom.flatMap({ roles[$0] }) else { return 2 }
            return from == .photo ? 0 : 1
        }
        return (a.assetId, rank(a.role), source(a), a.id!) < (b.assetId, rank(b.role), source(b), b.id!)
    }

    init(_ o: AssetOverviewRecord) {
        self.init(
            id: o.id, kind: o.kind, capturedAt: o.capturedAt, make: o.make, model: o.model, width: o.width, height: o.height,
            orientation: o.orientation, contentIdentifier: o.contentIdentifier,
            pairing: o.pairedBy.map { Pairing(rule: $0, confidence: o.pairingConfidence ?? 1) }, resources: [],
            lensModel: o.lensModel,
            location: o.latitude.flatMap { lat in o.longitude.map { GeoLocation(latitude: lat, longitude: $0, altitude: o.altitude) } },
            duration: o.duration, videoCodec: o.videoCodec, audioCodec: o.audioCodec, importedAt: o.importedAt)
    }
}

/// How much of an asset a listing reads.
public enum AssetDetail: Sendable {
    /// Everything `--json` gives.
    case full
    /// The asset's facts and its original still and movie: what a table or CSV prints.
    case originals
}
