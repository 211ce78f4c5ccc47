import Codecs
import Containers
import Foundation
import GRDB
import Imaging

/// `camlib aux attach`: a depth map or matte (a PNG) added to a HEIC as an auxiliary item,
/// the photo's coded data untouched (see ``HEIFAuxiliaryWriter``). Every result is read
/// back with libheif before it is kept: the new item must be there with its URN, and a
/// lossless attach must give back exactly the samples it was given.
public enum AuxiliaryAttacher {
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// The attached image as read back from the new file.
        public var attached: FoundAuxiliaryImage
        /// Largest difference between the given and the read-back samples (0 when lossless).
        public var maxError: Int
        /// The samples as given (one channel).
        public var given: ImageSamples
        /// Every auxiliary image of the new file, read back (decoded).
        public var found: [FoundAuxiliaryImage]
    }

    /// `depthRange`: for a depth map, the distances in metres its smallest (0) and largest
    /// sample values stand for, written as the item's ISO 23008-2 depth representation
    /// (uniform Z) so readers can turn samples into metres. A disparity map is marked as
    /// uniform disparity, which is how readers tell it from depth under the same URN.
    public static func attach(
        toFile path: String, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        depthRange: ClosedRange<Double>? = nil
    ) throws -> Result {
        guard let urn = type.urn else {
            throw MediaAnalyzer.Failure(reason: "choose what the image is with --type (depth, disparity, portrait-matte, …); `other` has no URN")
        }
        if let depthRange {
            guard type == .depth else { throw MediaAnalyzer.Failure(reason: "a distance range (--z-near, --z-far) belongs to a depth map, not a \(type.rawValue)") }
            guard depthRange.lowerBound > 0, depthRange.lowerBound < depthRange.upperBound, depthRange.upperBound.isFinite else {
                throw MediaAnalyzer.Failure(reason: "the distance range must run from a near distance above 0 to a farther one, in metres")
            }
        }
        let representation: DepthRepresentation? =
            switch type {
            case .disparity: DepthRepresentation(kind: .uniformDisparity, zNear: nil, zFar: nil)
            case .depth: depthRange.map { DepthRepresentation(kind: .uniformZ, zNear: $0.lowerBound, zFar: $0.upperBound) }
            default: nil
            }
        let header = try FileReading.prefix(of: path, count: 64)
        guard MediaFormat.sniff(header) == .heif else {
            throw MediaAnalyzer.Failure(reason: "\(path): auxiliary images can be attached to HEIC files only")
        }
        let samples = try readGray(image)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let bytes = try HEIFAuxiliaryWriter.attach(
            to: original, samples: samples, urn: urn, auxSubtype: representation?.auxSubtype ?? [], options: options)

        // Read it back before anyone keeps it.
        let extras = try AuxiliaryExtractor.scan(bytes: bytes, decode: true)
        let readBack = extras.auxiliaryImages.last { $0.urn == urn }
        guard let attached = readBack, let back = attached.samples, attached.type == type else {
            let why = readBack.map { $0.problem ?? ($0.type != type ? "it reads as \($0.type.rawValue)" : "no samples") } ?? "no such item"
            throw MediaAnalyzer.Failure(reason: "internal error: the written file does not read back with its new \(type.rawValue) item (\(urn)): \(why)")
        }
        let maxError = difference(samples, back)
        if options.lossless && maxError != 0 {
            throw MediaAnalyzer.Failure(reason: "internal error: the lossless item reads back with errors up to \(maxError)")
        }
        let primaryBefore = try HEIFFile(bytes: original).primaryImage()
        let primaryAfter = try HEIFFile(bytes: bytes).primaryImage()
        guard primaryBefore.width == primaryAfter.width, primaryBefore.height == primaryAfter.height else {
            throw MediaAnalyzer.Failure(reason: "internal error: the photo changed size in the written file")
        }
        return Result(bytes: bytes, attached: attached, maxError: maxError, given: samples, found: extras.auxiliaryImages)
    }

    /// A PNG as one gray channel: gray PNGs as they are, RGB ones whose channels are equal
    /// (what many tools write for gray) reduced to one.
    static func readGray(_ path: String) throws -> ImageSamples {
        let data = try FileAccessError.contents(of: path)
        let samples: ImageSamples
        do {
            samples = try PNGCodec.decodeSamples(data).samples
        } catch let e as PNGError {
            throw MediaAnalyzer.Failure(reason: "\(path): cannot read it as PNG: \(e.message)")
        }
        guard let gray = samples.gray else {
            throw MediaAnalyzer.Failure(reason: "\(path): a colour image; an auxiliary image is gray (one channel)")
        }
        return gray
    }

    static func difference(_ a: ImageSamples, _ b: ImageSamples) -> Int {
        switch (a, b) {
        case (.eight(let x), .eight(let y)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        case (.sixteen(let x, _), .sixteen(let y, _)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        default:
            return Int.max
        }
    }
}

extension AuxiliaryAttacher {
    /// Writes the result for a file outside the library.
    public static func write(_ result: Result, to destination: URL, overwrite: Bool) throws {
        try AtomicFile.write(result.bytes, to: destination, overwrite: overwrite)
    }
}
