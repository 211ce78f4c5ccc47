import Codecs
import Containers
import Foundation
import Imaging

/// `camlib aux attach`: a depth map or matte (a PNG) added to a photo, the photo's coded
/// data untouched: to a HEIC as an auxiliary item (see `HEIFAuxiliaryWriter` in Codecs), to a JPEG
/// as an MPF image with Apple's `apdi` XMP, as iPhone Portrait JPEGs carry theirs (see
/// `JPEGAuxiliaryWriter`). Every result is read back before it is kept: the new image
/// must be there as the type it was given, a lossless attach must give back exactly the
/// samples it was given, and the photo must be what it was.
public enum AuxiliaryAttacher {
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// The format of `bytes`: the photo's own, HEIC or JPEG.
        public var format: MediaFormat
        /// The attached image as read back from the new file.
        public var attached: FoundAuxiliaryImage
        /// Largest difference between the given and the read-back samples (0 when lossless).
        public var maxError: Int
        /// The samples as given (one channel).
        public var given: ImageSamples
        /// Every auxiliary image of the new file, read back (decoded).
        public var found: [FoundAuxiliaryImage]
        /// What the user should know about how it was stored ("a JPEG's auxiliary images
        /// are baseline JPEGs: …"), or nil.
        public var note: String?
    }

    /// `depthRange`: for a depth map, the distances in metres its smallest (0) and largest
    /// sample values stand for, written as the item's ISO 23008-2 depth representation
    /// (uniform Z) in a HEIC, as `apdi` FloatMinValue/FloatMaxValue in a JPEG, so readers
    /// can turn samples into metres. A disparity map is marked as uniform disparity (in a
    /// JPEG, `apdi` type disparity), which is how readers tell it from depth.
    ///
    /// Errors are ``AuxiliaryError``s naming the photo's file, or ``FileAccessError``s
    /// naming the PNG.
    public static func attach(
        toFile path: String, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        depthRange: ClosedRange<Double>? = nil
    ) throws -> Result {
        try AuxiliaryError.naming(file: path) {
            guard type.urn != nil else {
                throw AuxiliaryError("choose what the image is with --type (depth, disparity, portrait-matte, …); `other` says nothing")
            }
            if let depthRange {
                guard type == .depth else { throw AuxiliaryError("a distance range (--z-near, --z-far) belongs to a depth map, not a \(type.optionName)") }
                guard depthRange.lowerBound > 0, depthRange.lowerBound < depthRange.upperBound, depthRange.upperBound.isFinite else {
                    throw AuxiliaryError("the distance range must run from a near distance above 0 to a farther one, in metres")
                }
            }
            let header = try FileReading.prefix(of: path, count: 64)
            switch MediaFormat.sniff(header) {
            case .heif?:
                let samples = try readGray(image)
                return try attachToHEIF(try FileAccessError.contents(of: path), type: type, samples: samples, options: options, depthRange: depthRange)
            case .jpeg?:
                let samples = try readGray(image)
                return try attachToJPEG(try FileAccessError.contents(of: path), type: type, samples: samples, options: options, depthRange: depthRange)
            case let other:
                throw AuxiliaryError(
                    "auxiliary images can be attached to HEIC and JPEG photos; this is \(other.map { "a \($0.displayName) file" } ?? "not a photo camlib reads")")
            }
        }
    }

    static func attachToHEIF(
        _ original: [UInt8], type: AuxiliaryImageType, samples: ImageSamples, options: HEIFAuxiliaryWriter.Options, depthRange: ClosedRange<Double>?
    ) throws -> Result {
        guard let urn = type.urn else { throw AuxiliaryError("a \(type.optionName) image has no HEIF URN") }
        let representation: DepthRepresentation? =
            switch type {
            case .disparity: DepthRepresentation(kind: .uniformDisparity, zNear: nil, zFar: nil)
            case .depth: depthRange.map { DepthRepresentation(kind: .uniformZ, zNear: $0.lowerBound, zFar: $0.upperBound) }
            default: nil
            }
        let bytes = try writerReasons {
            try HEIFAuxiliaryWriter.attach(to: original, samples: samples, urn: urn, auxSubtype: representation?.auxSubtype ?? [], options: options)
        }
        let (attached, back, found) = try readBack(bytes, type: type, what: "item (\(urn))")
        let maxError = difference(samples, back)
        if options.lossless && maxError != 0 {
            throw AuxiliaryError("internal error: the lossless item reads back with errors up to \(maxError)")
        }
        let primaryBefore = try HEIFFile(bytes: original).primaryImage()
        let primaryAfter = try HEIFFile(bytes: bytes).primaryImage()
        guard primaryBefore.width == primaryAfter.width, primaryBefore.height == primaryAfter.height else {
            throw AuxiliaryError("internal error: the photo changed size in the written file")
        }
        return Result(bytes: bytes, format: .heif, attached: attached, maxError: maxError, given: samples, found: found)
    }

    /// JPEG keeps 8 bits a sample, and turbojpeg's baseline JPEG is not lossless: the
    /// default (lossless) asks for quality 100, and the result says how far it is off.
    static func attachToJPEG(
        _ original: [UInt8], type: AuxiliaryImageType, samples: ImageSamples, options: HEIFAuxiliaryWriter.Options, depthRange: ClosedRange<Double>?
    ) throws -> Result {
        guard let description = ApplePixelDataInfo(type: type, floatRange: depthRange) else {
            throw AuxiliaryError(
                "a \(type.optionName) image cannot be attached to a JPEG: an iPhone's JPEG gain map comes with parameters (headroom, …) that a PNG does not give; attach it to a HEIC")
        }
        guard case .eight(let gray) = samples else {
            throw AuxiliaryError(
                "a JPEG holds 8-bit auxiliary images (as iPhones write them) and this PNG has \(samples.bitDepth) significant bits; attach it to a HEIC (Main 10/12), or give an 8-bit PNG")
        }
        let existing = try AuxiliaryExtractor.scan(bytes: original, decode: false).auxiliaryImages
        guard !existing.contains(where: { $0.type == type }) else { throw AuxiliaryError("the photo already has a \(type.optionName) image") }
        let quality = options.lossless ? 100 : options.quality
        let bytes = try writerReasons { try JPEGAuxiliaryWriter.attach(to: original, samples: gray, description: description, quality: quality) }
        let (attached, back, found) = try readBack(bytes, type: type, what: "MPF image")
        guard try photo(of: bytes) == photo(of: original) else {
            throw AuxiliaryError("internal error: the photo's bytes changed beyond its MPF index")
        }
        let maxError = difference(samples, back)
        let note = options.lossless && maxError != 0
            ? "a JPEG's auxiliary images are baseline JPEGs, as an iPhone's are: stored at quality 100, not lossless (attach to a HEIC to keep every sample)"
            : nil
        return Result(bytes: bytes, format: .jpeg, attached: attached, maxError: maxError, given: samples, found: found, note: note)
    }

    /// What the writers refuse ("the photo already has …", "the image is 480x640 but …")
    /// said as it is, not as a decoding failure.
    static func writerReasons<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as JPEGError where e.context == "attaching" {
            throw AuxiliaryError(e.message)
        } catch let e as HEIFError where e.context == "attaching" {
            throw AuxiliaryError(e.message)
        }
    }

    /// The new image of `type` as `bytes` hold it (the last of its type), decoded.
    static func readBack(_ bytes: [UInt8], type: AuxiliaryImageType, what: String) throws
        -> (image: FoundAuxiliaryImage, samples: ImageSamples, all: [FoundAuxiliaryImage])
    {
        let extras = try AuxiliaryExtractor.scan(bytes: bytes, decode: true)
        let readBack = extras.auxiliaryImages.last { $0.type == type } ?? extras.auxiliaryImages.last
        guard let attached = readBack, let back = attached.samples, attached.type == type else {
            let why = readBack.map { $0.problem ?? ($0.type != type ? "it reads as \($0.type.rawValue)" : "no samples") } ?? "no such image"
            throw AuxiliaryError("internal error: the written file does not read back with its new \(type.rawValue) \(what): \(why)")
        }
        return (attached, back, extras.auxiliaryImages)
    }

    /// A JPEG's photo (up to its end-of-image marker) without its MPF segment.
    static func photo(of jpeg: [UInt8]) throws -> [UInt8] {
        let end = JPEGSegments.endOfImage(in: jpeg) ?? jpeg.count
        var photo = Array(jpeg[..<end])
        if let mpf = try JPEGSegments(parsing: photo).mpfSegment {
            photo.removeSubrange(mpf.offset..<(mpf.offset + 4 + mpf.payload.count))
        }
        return photo
    }

    /// A PNG as one gray channel: gray PNGs as they are, RGB ones whose channels are equal
    /// (what many tools write for gray) reduced to one.
    static func readGray(_ path: String) throws -> ImageSamples {
        let data = try FileAccessError.contents(of: path)
        let samples: ImageSamples
        do {
            samples = try PNGCodec.decodeSamples(data).samples
        } catch let e as PNGError {
            throw FileAccessError(path: path, cause: "cannot read it as PNG: \(e.message)")
        }
        guard let gray = samples.gray else {
            throw FileAccessError(path: path, cause: "a colour image; an auxiliary image is gray (one channel)")
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

extension AuxiliaryAttacher {
    /// A JPEG render with the images a recipe attached added again, as they were given
    /// (an edit renders from the original; a HEIC render copies them from the current
    /// version instead, since its items need no re-encoding).
    static func attaching(_ attachments: [CamlibRecipe.Attachment], toJPEG bytes: [UInt8]) throws -> [UInt8] {
        var bytes = bytes
        for a in attachments {
            guard let png = Data(base64Encoded: a.png), let samples = try PNGCodec.decodeSamples([UInt8](png)).samples.gray else {
                throw AuxiliaryError("internal error: the recipe's \(a.type.rawValue) image is not a gray PNG")
            }
            var options = HEIFAuxiliaryWriter.Options()
            (options.lossless, options.quality) = (a.lossless, a.quality)
            let range = a.zNear.flatMap { near in a.zFar.map { near...$0 } }
            bytes = try attachToJPEG(bytes, type: a.type, samples: samples, options: options, depthRange: range).bytes
        }
        return bytes
    }
}
