import Codecs
import Containers
import Foundation
import GRDB

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
        var names = AuxiliaryFileNames()
        var results: [AuxiliaryExtraction] = []
        for image in images {
            let destination = folder.appendingPathComponent(names.next(for: image.type))
            var result = AuxiliaryExtraction(type: image.type, source: image.source, path: destination.path, problem: nil)
            do {
                if let problem = image.problem, image.path == nil { throw MediaAnalyzer.Failure(reason: problem) }
                var png: [UInt8]?
                if let path = image.path, let data = FileManager.default.contents(atPath: path) { png = [UInt8](data) }
                if png == nil {
                    // Rebuild from the original still.
                    if rebuilt == nil {
                        guard let still = try describe([asset]).first?.resources.first(where: { $0.role == .photo }) else {
                            throw MediaAnalyzer.Failure(reason: "the asset has no still to extract from")
                        }
                        let extras = try AuxiliaryExtractor.scan(path: still.path, decode: true)
                        rebuilt = Dictionary(extras.auxiliaryImages.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
                    }
                    guard let samples = rebuilt?[image.source]?.samples else {
                        throw MediaAnalyzer.Failure(reason: "its PNG is missing and it cannot be decoded again from the original")
                    }
                    png = try AuxiliaryPNG.encode(samples)
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

/// One auxiliary image written (or not) by `camlib aux extract`.
public struct AuxiliaryExtraction: Codable, Sendable, Equatable {
    public var type: AuxiliaryImageType
    public var source: String
    /// Where it was written; null when it was not.
    public var path: String?
    public var problem: String?
}

/// `<type>.png`, then `<type>-2.png`, … for repeated types.
struct AuxiliaryFileNames {
    private var used: [AuxiliaryImageType: Int] = [:]

    mutating func next(for type: AuxiliaryImageType) -> String {
        let n = (used[type] ?? 0) + 1
        used[type] = n
        return n == 1 ? "\(type.rawValue).png" : "\(type.rawValue)-\(n).png"
    }
}

/// Auxiliary images of a file outside the library.
public enum LooseFileAuxiliaryImages {
    /// Lists (without decoding unless `decode`) what a still carries.
    public static func describe(path: String, decode: Bool = false) throws -> (aux: [AssetDescription.Aux], movie: EmbeddedMovie?, warnings: [String]) {
        let extras = try AuxiliaryExtractor.scan(path: path, decode: decode)
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
                guard let samples = found.samples else { throw MediaAnalyzer.Failure(reason: found.problem ?? "not decoded") }
                try AtomicFile.write(try AuxiliaryPNG.encode(samples), to: destination, overwrite: overwrite)
            } catch {
                result.path = nil
                result.problem = MediaAnalyzer.describe(error)
            }
            results.append(result)
        }
        return results
    }
}
