import Codecs
import Containers
import Foundation
import Imaging

/// An auxiliary image found in a still (depth, disparity, a matte, a gain map, …), with
/// its pixels in the photo's displayed orientation when camlib could decode them.
public struct FoundAuxiliaryImage: Sendable {
    public var type: AuxiliaryImageType
    /// The HEIF `auxC` URN, when the image has one.
    public var urn: String?
    /// Where in the file: "heif:item/49", "mpf:2", "xmp:GDepth", "container:1".
    public var source: String
    /// As displayed (after orientation); nil when not known without decoding.
    public var width: Int?
    public var height: Int?
    public var bitDepth: Int?
    public var channels: Int?
    public var encoding: AuxiliaryEncoding
    public var samples: ImageSamples?
    /// Why the pixels were not extracted (nil when they were, or when not asked to).
    public var problem: String?
}

/// How an auxiliary image's samples turn into physical values, as the file states it,
/// so a user can turn depth and disparity into metres.
///
/// For Apple's (`apdi`) and HEIF depth items the mapping is linear:
/// `value = floatMin + (sample - intMin) / (intMax - intMin) * (floatMax - floatMin)`, in
/// `units`; disparity is in 1/m, so metres = 1 / disparity. Google GDepth gives `near`,
/// `far` and `format`: RangeLinear `d = n * (far - near) + near`, RangeInverse
/// `d = far * near / (far - n * (far - near))`, with `n = sample / maxSample`.
public struct AuxiliaryEncoding: Codable, Sendable, Equatable {
    /// "disparity", "depth", "matte", "gainMap", "image".
    public var meaning: String?
    public var units: String?
    public var floatMin: Double?
    public var floatMax: Double?
    public var intMin: Int?
    public var intMax: Int?
    /// GDepth `Format` (RangeInverse, RangeLinear) or the HEIF depth representation type.
    public var format: String?
    public var near: Double?
    public var far: Double?
    /// The conversion in words, for people reading the catalog.
    public var toMetres: String?
    /// Every simple XMP property of the item, as "prefix:Name" (apdi:FloatMaxValue,
    /// depthData:Quality, GDepth:Near, hdrgm:GainMapMax, …).
    public var properties: [String: String] = [:]

    public init() {}

    var isEmpty: Bool { self == AuxiliaryEncoding() }
}

extension AuxiliaryEncoding {
    /// Conventional prefixes for the namespaces whose properties are kept.
    static let prefixes: [String: String] = [
        XMPNamespace.apdi: "apdi", XMPNamespace.appleDepthData: "depthData", XMPNamespace.appleHDRGainMap: "HDRGainMap",
        XMPNamespace.gDepth: "GDepth", XMPNamespace.hdrGainMap: "hdrgm",
        "http://ns.apple.com/portraitEffectsMatte/1.0/": "portraitEffectsMatte",
        "http://ns.apple.com/semanticSegmentationMatte/1.0/": "semanticSegmentationMatte",
        XMPNamespace.camlibCapture: "camlib",
    ]

    /// Keeps the item's XMP properties and reads Apple's linear mapping from them.
    mutating func absorb(_ xmp: XMPPacket, type: AuxiliaryImageType) {
        for (key, value) in xmp.properties {
            guard let prefix = Self.prefixes[key.namespace], key.name != "Data" else { continue }
            properties["\(prefix):\(key.name)"] = value
        }
        let apdi = xmp.properties(in: XMPNamespace.apdi)
        if let lo = apdi["FloatMinValue"].flatMap(Double.init), let hi = apdi["FloatMaxValue"].flatMap(Double.init) {
            floatMin = lo
            floatMax = hi
            intMin = apdi["IntMinValue"].flatMap { Int($0) } ?? 0
            intMax = apdi["IntMaxValue"].flatMap { Int($0) }
        }
        describe(type)
    }

    /// Fills meaning, units and the formula from the type and the numbers known so far.
    mutating func describe(_ type: AuxiliaryImageType) {
        switch type {
        case .disparity:
            meaning = "disparity"
            if floatMin != nil {
                units = "1/m"
                toMetres = "disparity = floatMin + (v - intMin) / (intMax - intMin) * (floatMax - floatMin) in 1/m; metres = 1 / disparity"
            }
        case .depth where format == "RangeInverse" || format == "RangeLinear":
            meaning = "depth"
            toMetres =
                format == "RangeInverse"
                ? "n = v / maxSample; depth = far * near / (far - n * (far - near)), in the units of near and far"
                : "n = v / maxSample; depth = n * (far - near) + near, in the units of near and far"
        case .depth:
            meaning = "depth"
            if floatMin != nil {
                units = "m"
                toMetres = "metres = floatMin + (v - intMin) / (intMax - intMin) * (floatMax - floatMin)"
            }
        case .hdrGainMap: meaning = "gainMap"
        case .other: meaning = meaning ?? "image"
        default: meaning = "matte"
        }
    }
}

/// How camlib writes auxiliary images: lossless PNG, one zlib level everywhere, so an
/// image extracted on import, extracted again later or rebuilt is the same file. Each
/// says what it is in text chunks (any PNG reader shows them: `exiftool`, `pngcheck -t`,
/// Pillow's `info`): `Title` and `Source` name the image and the file it came from,
/// `Description` gives its meaning, range and depth in words, and `camlib:aux` the same
/// as JSON (type, urn, source, file, bitDepth, encoding: what `aux list --json` prints).
/// 10- and 12-bit images are scaled to the full 16-bit range, sBIT recording their depth.
enum AuxiliaryPNG {
    /// zlib level 1: much faster than level 3 for a few percent more bytes, and aux PNGs
    /// are derived and can be made again (docs/performance.md).
    static let compressionLevel = 1

    /// What an image is, for its text chunks.
    struct About {
        var type: AuxiliaryImageType
        var urn: String?
        /// Where in the file: "heif:item/49", "xmp:GDepth".
        var source: String
        var encoding: AuxiliaryEncoding?
        /// The name of the still it came from.
        var file: String
    }

    /// `about`: nil for images that are data rather than files (an attachment kept in a
    /// recipe), which go without text.
    static func encode(_ samples: ImageSamples, about: About?) throws -> [UInt8] {
        try PNGCodec.encode(samples, texts: about.map { texts($0, samples: samples) } ?? [], compressionLevel: compressionLevel)
    }

    static func encode(_ samples: ImageSamples, of image: FoundAuxiliaryImage, in file: String) throws -> [UInt8] {
        try encode(samples, about: About(type: image.type, urn: image.urn, source: image.source, encoding: image.encoding, file: file))
    }

    static func texts(_ about: About, samples: ImageSamples) -> [PNGCodec.Text] {
        let bits = samples.bitDepth
        var description = [about.encoding?.meaning ?? about.type.optionName]
        if let range = about.encoding?.rangeText { description.append(range) }
        if let format = about.encoding?.format { description.append(format) }
        let stored: Int
        switch samples {
        case .eight: stored = 8
        case .sixteen: stored = 16
        }
        description.append(bits < stored ? "\(bits) significant bits, scaled to \(stored)" : "\(bits)-bit")
        if let urn = about.urn { description.append(urn) }
        let facts = Facts(type: about.type.rawValue, urn: about.urn, source: about.source, file: about.file, bitDepth: bits, encoding: about.encoding)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(facts)).map { String(decoding: $0, as: UTF8.self) }
        return [
            PNGCodec.Text("Title", "\(about.type.optionName) from \(about.file)"),
            PNGCodec.Text("Source", "\(about.file) \(about.source)"),
            PNGCodec.Text("Description", description.joined(separator: "; ")),
            PNGCodec.Text("Software", "camlib"),
        ] + (json.map { [PNGCodec.Text("camlib:aux", $0)] } ?? [])
    }

    private struct Facts: Encodable {
        var type: String
        var urn: String?
        var source: String
        var file: String
        var bitDepth: Int
        var encoding: AuxiliaryEncoding?
    }
}
