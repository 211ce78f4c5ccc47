import Foundation

extension PhotoLibrary {
    /// A `place` job: names the places of the asset's located files that have none yet,
    /// in the transaction that completes the job. A file far from every place stays
    /// unnamed.
    func namePlaces(_ lease: JobLease) throws {
        let asset = lease.job.asset
        let files = try catalog.read { db in try PlaceRecord.unnamedFiles(of: asset, db) }
        // Looked up before the write: the first lookup of a process reads camlib's places.
        let names = files.compactMap { file in
            PlaceIndex.bundled.name(latitude: file.latitude, longitude: file.longitude).map { (file.resource, $0) }
        }
        try completeJob(lease) { db in
            for (resource, name) in names {
                try PlaceRecord.setPlace(try PlaceRecord.id(of: name, db), ofFile: resource, db)
            }
        }
    }

    /// Every place some asset was taken at, as the catalog names them.
    public func placeNames() throws -> [PlaceName] {
        try catalog.read { db in try PlaceRecord.fetchAll(db).map(\.name) }
    }

    /// The map's points: every asset outside the trash with a location.
    public func mapIndex() throws -> MapIndex {
        var points: [(asset: Int64, latitude: Double, longitude: Double)] = []
        try catalog.read { db in try MetadataRecord.forEachLocatedAsset(db) { points.append(($0, $1, $2)) } }
        return MapIndex(points)
    }

    /// Changes whenever ``mapIndex()`` may: read in a few index probes.
    public func mapIndexMark() throws -> String {
        try catalog.read { db in try MetadataRecord.locationsMark(db) }
    }
}
