import Codecs
import Containers
import Foundation

/// Auxiliary images of library assets and of loose files, for `camlib aux`.
extension PhotoLibrary {
    /// The auxiliary images the catalog lists for an asset.
    public func auxiliaryImages(of asset: Int64) throws -> [AssetDescription.Aux] {
        try describe([asset]).first?.aux ?? []
    }

    /// Writes an asset's auxiliary images as PNGs into `folder`, named by type
    /// (`disparity.png`, `skinMatte.png`, a second of a type `other-2.png`): the library's
    /// own PNGs, made first when they are not made yet or are missing
    /// (``auxiliaryPNG(_:)``). Returns what was written; problems (an image camlib could
    /// not decode, an existing file) are reported per image and the others are still
    /// written.
    public func extractAuxiliaryImages(
        of asset: Int64, types: Set<AuxiliaryImageType>?, to folder: URL, overwrite: Bool
    ) throws -> [AuxiliaryExtraction] {
        let rows = try currentAuxiliaryRows(of: asset).filter { row in
            guard let types else { return true }
            return types.contains(row.type) || (types.contains(.depth) && row.type == .disparity)
        }
        var names = AuxiliaryFileNames()
        var results: [AuxiliaryExtraction] = []
        // Those not made yet are made from one reading of their still.
        for (row, png) in zip(rows, try auxiliaryPNGs(rows)) {
            let destination = folder.appendingPathComponent(names.next(for: row.type))
            var result = AuxiliaryExtraction(type: row.type, source: row.source, path: destination.path, problem: nil)
            do {
                try AtomicFile.write(try FileAccessError.contents(of: try png.get().path), to: destination, overwrite: overwrite)
            } catch let error as AuxiliaryError {
                (result.path, result.problem) = (nil, error.reason)
            } catch {
                (result.path, result.problem) = (nil, MediaAnalyzer.describe(error))
            }
            results.append(result)
        }
        return results
    }
}
