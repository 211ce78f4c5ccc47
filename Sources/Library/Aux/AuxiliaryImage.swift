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
/// image extracted on import, extracted again later or rebuilt is the same file.
enum AuxiliaryPNG {
    /// zlib level 1: measured on the corpus, a whole import takes 2.3 s instead of 2.7 s
    /// (level 3) for 5% more bytes; aux PNGs are derived and can be rebuilt.
    static let compressionLevel = 1

    static func encode(_ samples: ImageSamples) throws -> [UInt8] {
        try PNGCodec.encode(samples, compressionLevel: compressionLevel)
    }
}
