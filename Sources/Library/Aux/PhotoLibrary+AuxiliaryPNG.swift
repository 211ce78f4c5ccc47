import Containers
import Foundation
import GRDB

/// Auxiliary images' PNGs, made when first asked for. Import records each image's facts
/// from the container alone (type, URN, size, bit depth, depth representation, where it
/// is) and the place its PNG will have under `derived/aux/`; the PNG itself (a decode
/// of HEVC or JPEG, and a PNG encode: most of what import used to spend on a Portrait
/// photo) is made the first time `aux extract`, the gallery or `repair` needs it, kept
/// there from then on, and its bytes recorded in the row. A row whose `sha256` is null
/// names a PNG not made yet.
extension PhotoLibrary {
    /// The PNG of the auxiliary image `id` (an `aux_image` row), made now when it is not
    /// there or does not hold the bytes recorded. A library on read-only storage gets
    /// it in the user's cache instead (``displayLayout()``), and its row stays as it is.
    /// Throws an ``AuxiliaryError`` naming the asset and its file when the image cannot
    /// be decoded; the row then says why, and its path is cleared, as import did for
    /// images it could not decode.
    public func auxiliaryPNG(_ id: Int64) throws -> URL {
        guard let row = try catalog.read({ db in try AuxImageRecord.fetchOne(db, key: id) }) else {
            throw AuxiliaryError("no auxiliary image \(id) in the catalog")
        }
        return try auxiliaryPNG(row)
    }

    /// The PNG of the auxiliary image found at `source` (`heif:item/49`, `mpf:2`: an
    /// ``AssetDescription/Aux``'s `source`) in the asset's current still, made now when it
    /// is not made yet.
    public func auxiliaryPNG(asset: Int64, source: String) throws -> URL {
        guard let row = try currentAuxiliaryRows(of: asset).first(where: { $0.source == source }) else {
            throw AuxiliaryError("it has no auxiliary image at \(source)", asset: asset)
        }
        return try auxiliaryPNG(row)
    }

    /// Makes every auxiliary image PNG of the asset's current version that is not made
    /// yet; returns those that cannot be decoded (their rows say why from then on).
    @discardableResult
    public func makeAuxiliaryPNGs(of asset: Int64) throws -> [AuxiliaryError] {
        var failed: [AuxiliaryError] = []
        for row in try currentAuxiliaryRows(of: asset) where row.path != nil {
            do {
                _ = try auxiliaryPNG(row)
            } catch let error as AuxiliaryError {
                failed.append(error)
            }
        }
        return failed
    }

    /// The asset's auxiliary images in the files its current version shows, in the order
    /// they were found (as ``describe(_:)`` lists them).
    func currentAuxiliaryRows(of asset: Int64) throws -> [AuxImageRecord] {
        try catalog.read { db in
            let current = Set(try ResourceRecord.fetchCurrentShown(assets: IDList([asset]), db).compactMap(\.id))
            return try AuxImageRecord.fetchAll(assets: IDList([asset]), db).filter { current.contains($0.resourceId) }
        }
    }

    /// `remake`: make it even when a file of the recorded size is there (`repair`, for a
    /// file whose bytes are not those recorded).
    func auxiliaryPNG(_ row: AuxImageRecord, remake: Bool = false) throws -> URL {
        guard let path = row.path else {
            throw AuxiliaryError(row.problem ?? "its \(row.type.rawValue) image could not be decoded", asset: row.assetId)
        }
        let kept = try file(path, of: row.assetId)
        if !remake, let made = madePNG(row) { return made }
        let target = isReadOnly ? try displayLayout().root.appendingPathComponent(path) : kept
        if isReadOnly, FileManager.default.fileExists(atPath: target.path) { return target }

        guard let still = try catalog.read({ db in try ResourceRecord.fetchOne(db, key: row.resourceId) }) else {
            throw AuxiliaryError("the file its \(row.type.rawValue) image is in is not in the catalog", asset: row.assetId)
        }
        let name = still.originalName ?? URL(fileURLWithPath: still.path).lastPathComponent
        // An image that cannot be decoded is said once, in the row, as import said it of
        // such images; a file that cannot be read (missing, unreadable) changes nothing.
        var undecodable: String?
        let made = try AuxiliaryError.naming(asset: row.assetId, file: name) { () throws -> AtomicFile.Temporary in
            let stillPath = try file(still.path, of: row.assetId).path
            let found = try AuxiliaryExtractor.scan(path: stillPath, decode: .only([row.source])).auxiliaryImages
            guard let image = found.first(where: { $0.source == row.source }), let samples = image.samples else {
                let why = found.first { $0.source == row.source }.map { $0.problem ?? "no samples" } ?? "it is no longer in the file"
                undecodable = "its \(row.type.rawValue) image (\(row.source)) cannot be decoded: \(why)"
                throw AuxiliaryError(undecodable!)
            }
            let png = try AuxiliaryPNG.encode(samples, of: image, in: name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            return try AtomicFile.writeTemporary(png, in: isReadOnly ? target.deletingLastPathComponent() : temporary)
        } onError: {
            if let undecodable, !isReadOnly {
                try? catalog.write { db in
                    try db.execute(
                        sql: "UPDATE aux_image SET path = NULL, sha256 = NULL, bytes = NULL, problem = ? WHERE id = ?",
                        arguments: [undecodable, row.id])
                }
            }
        }
        // The temporary file goes whatever happens (placed, it is renamed away first).
        defer { unlink(made.url.path) }
        if isReadOnly {
            try AtomicFile.publishIfAbsent(made.url, to: target)
            return target
        }
        try catalog.write { db in
            _ = try publishDerived(made.url, to: target)
            try db.execute(
                sql: "UPDATE aux_image SET sha256 = ?, bytes = ?, problem = NULL WHERE id = ?",
                arguments: [made.sha256, made.bytes, row.id])
        }
        return target
    }

    /// The PNG of `row` when it is made and has the size recorded (its bytes are
    /// `verify`'s to check); nil when it is to be made.
    func madePNG(_ row: AuxImageRecord) -> URL? {
        guard let path = row.path, let bytes = row.bytes, row.sha256 != nil, let url = layout.confined(path) else { return nil }
        return Self.fileSize(url) == bytes ? url : nil
    }
}
