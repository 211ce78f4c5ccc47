import Codecs
import Containers
import Foundation

/// Auxiliary images of a file outside the library.
public enum LooseFileAuxiliaryImages {
    /// Lists (without decoding unless `decode`) what a still carries.
    public static func describe(path: String, decode: Bool = false) throws -> (aux: [AssetDescription.Aux], movie: EmbeddedMovie?, warnings: [String]) {
        let extras = try AuxiliaryExtractor.scan(path: path, decode: decode ? .all : .none)
        let aux = extras.auxiliaryImages.map { found in
            AssetDescription.Aux(
                type: found.type, urn: found.urn, width: found.width, height: found.height, bitDepth: found.bitDepth, path: nil,
                source: found.source, channels: found.channels, encoding: found.encoding.isEmpty ? nil : found.encoding,
                problem: found.problem)
        }
        return (aux, extras.movie, extras.warnings)
    }

    /// Decodes a still's auxiliary images and writes them as PNGs into `folder`, named by type.
    public static func extract(path: String, types: Set<AuxiliaryImageType>?, to folder: URL, overwrite: Bool) throws
        -> [AuxiliaryExtraction]
    {
        let extras = try AuxiliaryExtractor.scan(path: path, decode: true)
        var names = AuxiliaryFileNames()
        var results: [AuxiliaryExtraction] = []
        for found in extras.auxiliaryImages
        where types == nil || types!.contains(found.type) || (types!.contains(.depth) && found.type == .disparity) {
            let destination = folder.appendingPathComponent(names.next(for: found.type))
            var result = AuxiliaryExtraction(type: found.type, source: found.source, path: destination.path, problem: nil)
            do {
                guard let samples = found.samples else { throw AuxiliaryError(found.problem ?? "not decoded") }
                try AtomicFile.write(try AuxiliaryPNG.encode(samples, of: found, in: URL(fileURLWithPath: path).lastPathComponent), to: destination, overwrite: overwrite)
            } catch {
                result.path = nil
                result.problem = MediaAnalyzer.describe(error)
            }
            results.append(result)
        }
        return results
    }
}
