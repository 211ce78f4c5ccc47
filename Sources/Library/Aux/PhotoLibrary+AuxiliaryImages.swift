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
    /// (`disparity.png`, `skinMatte.png`, a second of a type `other-2.png`). A missing
    /// derived PNG (derived/ deleted) is rebuilt from the original. Returns what was
    /// written; problems (an image camlib could not decode, an existing file) are
    /// reported per image and the others are still written.
    public func extractAuxiliaryImages(
        of asset: Int64, types: Set<AuxiliaryImageType>?, to folder: URL, overwrite: Bool
    ) throws -> [AuxiliaryExtraction] {
        let images = try auxiliaryImages(of: asset).filter { types == nil || types!.contains($0.type) || (types!.contains(.depth) && $0.type == .disparity) }
        var rebuilt: [String: FoundAuxiliaryImage]?
        var stillName = ""
        var names = AuxiliaryFileNames()
        var results: [AuxiliaryExtraction] = []
        for image in images {
            let destination = folder.appendingPathComponent(names.next(for: image.type))
            var result = AuxiliaryExtraction(type: image.type, source: image.source, path: destination.path, problem: nil)
            do {
                if let problem = image.problem, image.path == nil { throw AuxiliaryError(problem) }
                var png: [UInt8]?
                if let path = image.path, let data = FileManager.default.contents(atPath: path) { png = [UInt8](data) }
                if png == nil {
                    // Rebuild from the original still.
                    if rebuilt == nil {
                        guard let still = try describe([asset]).first?.resources.first(where: { $0.role == .photo }) else {
                            throw AuxiliaryError("the asset has no still to extract from")
                        }
                        let extras = try AuxiliaryExtractor.scan(path: still.path, decode: true)
                        rebuilt = Dictionary(extras.auxiliaryImages.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
                        stillName = still.originalName ?? URL(fileURLWithPath: still.path).lastPathComponent
                    }
                    guard let found = rebuilt?[image.source], let samples = found.samples else {
                        throw AuxiliaryError("its PNG is missing and it cannot be decoded again from the original")
                    }
                    png = try AuxiliaryPNG.encode(samples, of: found, in: stillName)
                }
                try AtomicFile.write(png!, to: destination, overwrite: overwrite)
            } catch {
                result.path = nil
                result.problem = MediaAnalyzer.describe(error)
            }
            results.append(result)
        }
        return results
    }
}
