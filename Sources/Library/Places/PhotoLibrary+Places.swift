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
}
