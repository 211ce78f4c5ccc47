import Containers
import Foundation

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
    /// it in the user's cache instead (`displayLayout()`), and its row stays as it is.
    /// Throws an ``AuxiliaryError`` naming the asset and its file when the image cannot
    /// be decoded; the row then says why, and its path is cleared, as import did for
    /// images it could not decode.
    public func auxiliaryPNG(_ id: Int64) throws -> URL {
        guard let row = try catalog.read({ db in try AuxImageRecord.find(id, db) }) else {
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
        try auxiliaryPNGs(try currentAuxiliaryRows(of: asset).filter { $0.path != nil }).compactMap { result in
            if case .failure(let error) = result { error } else { nil }
        }
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
        try auxiliaryPNGs([row], remake: remake)[0].get()
    }

    /// The PNGs of `rows`, in their order: each where it is, or why it cannot be made.
    /// Those to make that one still holds are made from one reading and parse of it.
    /// `fence` runs in the transaction that records each (a job's lease check).
    func auxiliaryPNGs(_ rows: [AuxImageRecord], remake: Bool = false, fence: ((any CatalogConnection) throws -> Void)? = nil) throws
        -> [Result<URL, AuxiliaryError>]
    {
        var results = [Result<URL, AuxiliaryError>?](repeating: nil, count: rows.count)
        var toMake: [Int64: [Wanted]] = [:]
        for (index, row) in rows.enumerated() {
            guard let path = row.path else {
                results[index] = .failure(AuxiliaryError(row.problem ?? "its \(row.type.rawValue) image could not be decoded", asset: row.assetId))
                continue
            }
            let kept = try file(path, of: row.assetId)
            if !remake, let made = madePNG(row) {
                results[index] = .success(made)
                continue
            }
            let target = isReadOnly ? try displayLayout().root.appendingPathComponent(path) : kept
            if isReadOnly, FileManager.default.fileExists(atPath: target.path) {
                results[index] = .success(target)
                continue
            }
            toMake[row.resourceId, default: []].append(Wanted(index: index, row: row, target: target))
        }
        for (resource, wanted) in toMake.sorted(by: { $0.key < $1.key }) {
            for (index, result) in try makePNGs(wanted, in: resource, fence: fence) { results[index] = result }
        }
        return results.map { $0! }
    }

    /// An aux image whose PNG is to be made: where it is in the caller's list, and where
    /// its PNG goes.
    private struct Wanted {
        var index: Int
        var row: AuxImageRecord
        var target: URL
    }

    /// Decodes the images `wanted`, all held by the still `resource`, from one reading of
    /// it, and places their PNGs. An image that cannot be decoded is said once, in its
    /// row, as import said it of such images; a still that cannot be read (missing,
    /// unreadable) fails them all and changes nothing.
    private func makePNGs(_ wanted: [Wanted], in resource: Int64, fence: ((any CatalogConnection) throws -> Void)?) throws -> [(Int, Result<URL, AuxiliaryError>)] {
        let asset = wanted[0].row.assetId
        func failure(_ error: Error, file: String?) -> AuxiliaryError {
            error as? AuxiliaryError ?? AuxiliaryError(MediaAnalyzer.describe(error), asset: asset, file: file)
        }
        guard let still = try catalog.read({ db in try ResourceRecord.find(resource, db) }) else {
            let error = AuxiliaryError("the file its auxiliary images are in is not in the catalog", asset: asset)
            return wanted.map { ($0.index, .failure(error)) }
        }
        let name = still.originalName ?? URL(fileURLWithPath: still.path).lastPathComponent
        let found: [FoundAuxiliaryImage]
        do {
            found = try AuxiliaryError.naming(asset: asset, file: name) {
                let sources = Set(wanted.map(\.row.source))
                return try AuxiliaryExtractor.scan(path: try file(still.path, of: asset).path, decode: .only(sources)).auxiliaryImages
            }
        } catch {
            let error = failure(error, file: name)
            return wanted.map { ($0.index, .failure(error)) }
        }
        var out: [(Int, Result<URL, AuxiliaryError>)] = []
        var undecodable: [(id: Int64?, reason: String)] = []
        for w in wanted {
            let row = w.row
            do {
                let url = try AuxiliaryError.naming(asset: asset, file: name) {
                    guard let image = found.first(where: { $0.source == row.source }), let samples = image.samples else {
                        let why = found.first { $0.source == row.source }.map { $0.problem ?? "no samples" } ?? "it is no longer in the file"
                        let reason = "its \(row.type.rawValue) image (\(row.source)) cannot be decoded: \(why)"
                        undecodable.append((row.id, reason))
                        throw AuxiliaryError(reason)
                    }
                    return try place(try AuxiliaryPNG.encode(samples, of: image, in: name), of: row, at: w.target, fence: fence)
                }
                out.append((w.index, .success(url)))
            } catch {
                out.append((w.index, .failure(failure(error, file: name))))
            }
        }
        if !undecodable.isEmpty, !isReadOnly {
            try? catalog.write { db in
                for (id, reason) in undecodable { try AuxImageRecord.setUndecodable(id, reason: reason, db) }
            }
        }
        return out
    }

    /// Puts a made PNG at `target`, recording its bytes in `row` (in the user's cache for
    /// a read-only library, the row as it is).
    private func place(_ png: [UInt8], of row: AuxImageRecord, at target: URL, fence: ((any CatalogConnection) throws -> Void)?) throws -> URL {
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let made = try AtomicFile.writeTemporary(png, in: isReadOnly ? target.deletingLastPathComponent() : temporary)
        // The temporary file goes whatever happens (placed, it is renamed away first).
        defer { unlink(made.url.path) }
        if isReadOnly {
            try AtomicFile.publishIfAbsent(made.url, to: target)
            return target
        }
        try catalog.write { db in
            try fence?(db)
            _ = try publishDerived(made.url, to: target)
            try AuxImageRecord.setMade(row.id, sha256: made.sha256, bytes: made.bytes, db)
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
