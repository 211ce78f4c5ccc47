import Codecs
import Containers
import Foundation
import Imaging

/// What a still carries beside its photo: auxiliary images and an embedded movie.
public struct StillExtras: Sendable {
    public var auxiliaryImages: [FoundAuxiliaryImage] = []
    public var movie: EmbeddedMovie?
    /// Problems worth telling the user; the photo itself is fine.
    public var warnings: [String] = []
}

/// Finds auxiliary images and Motion Photo movies in stills:
/// - HEIF: every `auxl` item (depth, Apple mattes and gain maps, anything else), decoded
///   by libheif in the item's displayed orientation; a Samsung `mpvd` movie box.
/// - JPEG: the MPF images described by Apple `apdi` or Adobe `hdrgm` XMP, Google XMP
///   GDepth/GImage, Google Container items, and appended Motion Photo movies; each image
///   turned to the photo's EXIF orientation.
public enum AuxiliaryExtractor {
    /// Opens a still and lists (and with `decode`, decodes the images it names) what it carries.
    /// Errors name the file: "PATH: cannot read HEIF: …".
    public static func scan(path: String, decode: AuxiliaryDecoding) throws -> StillExtras {
        do {
            return try scan(bytes: try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)), decode: decode)
        } catch {
            throw AuxiliaryError(MediaAnalyzer.describe(error), file: path)
        }
    }

    /// The same, for a whole file held in memory.
    public static func scan(bytes: [UInt8], decode: AuxiliaryDecoding) throws -> StillExtras {
        switch MediaFormat.sniff(Array(bytes.prefix(64))) {
        case .jpeg?:
            let segments = try JPEGSegments(parsing: bytes)
            let exif = segments.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }
            return scanJPEG(bytes, segments: segments, orientation: EXIFOrientation(exifValue: exif?.orientation ?? 1), decode: decode)
        case .heif?, .avif?:
            let file = try HEIFFile(bytes: bytes)
            return scanHEIF(bytes, primary: try file.primaryImage(), decode: decode)
        case let other?:
            return other.isStill ? StillExtras() : StillExtras(warnings: ["\(other.displayName) files carry no auxiliary images"])
        case nil:
            throw AuxiliaryError("not a photo camlib reads")
        }
    }

    // MARK: HEIF

    static func scanHEIF(_ bytes: [UInt8], primary: HEIFImage, decode: AuxiliaryDecoding) -> StillExtras {
        var extras = StillExtras()
        let (items, problems) = primary.auxiliaryImages()
        for problem in problems {
            extras.auxiliaryImages.append(
                FoundAuxiliaryImage(type: .other, urn: nil, source: "heif", encoding: AuxiliaryEncoding(), problem: problem))
        }
        for item in items {
            let xmp = item.xmp.flatMap { try? XMPPacket(parsing: $0) }
            let apdi = xmp?.properties(in: XMPNamespace.apdi) ?? [:]
            var type = AuxiliaryImageType(urn: item.urn, apdiType: apdi["AuxiliaryImageType"], apdiSubType: apdi["AuxiliaryImageSubType"])
            var encoding = AuxiliaryEncoding()
            let representation = AuxiliaryImageType.depthURNs.contains(item.urn) ? item.depthRepresentation : nil
            if let representation {
                if type == .depth, apdi["AuxiliaryImageType"] == nil,
                    representation.kind == .uniformDisparity || representation.kind == .nonuniformDisparity
                {
                    type = .disparity
                }
                encoding.format = representation.kind.rawValue
                let maxSample = (1 << max(1, min(item.bitDepth, 16))) - 1
                switch representation.kind {
                case .uniformDisparity, .nonuniformDisparity:
                    if let lo = representation.dMin, let hi = representation.dMax {
                        (encoding.floatMin, encoding.floatMax, encoding.intMin, encoding.intMax) = (lo, hi, 0, maxSample)
                    }
                case .uniformZ:
                    if let lo = representation.zNear, let hi = representation.zFar {
                        (encoding.floatMin, encoding.floatMax, encoding.intMin, encoding.intMax) = (lo, hi, 0, maxSample)
                    }
                case .uniformInverseZ:
                    (encoding.near, encoding.far) = (representation.zNear, representation.zFar)
                }
            }
            if let xmp { encoding.absorb(xmp, type: type) } else { encoding.describe(type) }
            var found = FoundAuxiliaryImage(
                type: type, urn: item.urn, source: "heif:item/\(item.itemID)", width: item.width, height: item.height,
                bitDepth: item.bitDepth, channels: item.channels, encoding: encoding)
            if decode.wants(found.source) {
                do {
                    let samples = try item.decodeSamples()
                    found.samples = samples
                    (found.width, found.height, found.channels) = (samples.width, samples.height, samples.channels)
                } catch {
                    found.problem = "cannot decode \(item.urn.isEmpty ? "the item" : item.urn): \(MediaAnalyzer.describe(error))"
                }
            }
            extras.auxiliaryImages.append(found)
        }
        let xmp = primary.metadataBlocks(type: "mime").lazy.compactMap { try? XMPPacket(parsing: $0) }.first
        findMovie(in: bytes, xmp: xmp, imageEnd: nil, into: &extras)
        return extras
    }

    // MARK: JPEG

    static func scanJPEG(_ bytes: [UInt8], segments: JPEGSegments, orientation: EXIFOrientation, decode: AuxiliaryDecoding) -> StillExtras {
        var extras = StillExtras()
        var xmp: XMPPacket?
        do {
            xmp = try segments.xmp()
        } catch {
            extras.warnings.append("XMP unreadable: \(error)")
        }
        var imageEnd = JPEGSegments.endOfImage(in: bytes) ?? bytes.count

        // Google Container items, by where they start: the primary, then each item in turn.
        var containerItems: [Int: (semantic: String, mime: String, length: Int)] = [:]
        if let xmp {
            var pos = imageEnd
            for (i, item) in xmp.arrayItems(XMPNamespace.container, "Directory").enumerated() {
                let semantic = item[.init(XMPNamespace.containerItem, "Semantic")] ?? ""
                let length = Int(item[.init(XMPNamespace.containerItem, "Length")] ?? "") ?? 0
                let padding = Int(item[.init(XMPNamespace.containerItem, "Padding")] ?? "") ?? 0
                if i == 0 {
                    pos = imageEnd + padding
                    continue
                }
                containerItems[pos] = (semantic, item[.init(XMPNamespace.containerItem, "Mime")] ?? "", length)
                pos += length + padding
            }
        }

        // MPF images.
        var mpfOffsets = Set<Int>()
        if let segment = segments.mpfSegment {
            do {
                let index = try MPFIndex(segment: segment)
                for (i, entry) in index.entries.enumerated() where !entry.isPrimary {
                    let number = i + 1
                    mpfOffsets.insert(entry.offset)
                    // Large thumbnails (0x010001, 0x010002) are previews, not auxiliary data.
                    if entry.type == 0x010001 || entry.type == 0x010002 { continue }
                    let semantic = containerItems[entry.offset]?.semantic
                    extras.auxiliaryImages.append(
                        mpfImage(bytes, entry: entry, number: number, semantic: semantic, orientation: orientation, decode: decode.wants("mpf:\(number)")))
                    if entry.offset + entry.size <= bytes.count { imageEnd = max(imageEnd, entry.offset + entry.size) }
                }
            } catch {
                extras.warnings.append("MPF index unreadable: \(error)")
            }
        }

        // Container items MPF does not already list (Dynamic Depth, gain maps without MPF).
        for (offset, item) in containerItems.sorted(by: { $0.key < $1.key })
        where !mpfOffsets.contains(offset) && item.semantic != "MotionPhoto" && item.length > 0 {
            let type: AuxiliaryImageType =
                switch item.semantic {
                case "GainMap": .hdrGainMap
                case "Depth": .depth
                default: .other
                }
            var found = FoundAuxiliaryImage(
                type: type, urn: nil, source: "container:\(item.semantic)", encoding: AuxiliaryEncoding())
            found.encoding.describe(type)
            guard offset + item.length <= bytes.count else {
                found.problem = "Container item \(item.semantic) at offset \(offset) + \(item.length) bytes runs past the end of the file (\(bytes.count) bytes)"
                extras.auxiliaryImages.append(found)
                continue
            }
            imageEnd = max(imageEnd, offset + item.length)
            decodeEmbedded(
                Array(bytes[offset..<(offset + item.length)]), mime: item.mime, type: type, orientation: orientation, decode: decode.wants(found.source),
                into: &found)
            extras.auxiliaryImages.append(found)
        }

        // Google depth (Lens Blur) and the unblurred original, base64 in XMP.
        if let xmp {
            for (namespace, name) in [(XMPNamespace.gDepth, "GDepth"), (XMPNamespace.gImage, "GImage")] {
                guard let data = xmp.value(namespace, "Data") else { continue }
                let type: AuxiliaryImageType = name == "GDepth" ? .depth : .other
                var found = FoundAuxiliaryImage(type: type, urn: nil, source: "xmp:\(name)", encoding: AuxiliaryEncoding())
                if name == "GDepth" {
                    let g = xmp.properties(in: XMPNamespace.gDepth)
                    found.encoding.format = g["Format"]
                    found.encoding.near = g["Near"].flatMap(Double.init)
                    found.encoding.far = g["Far"].flatMap(Double.init)
                    found.encoding.units = g["Units"]
                    for (k, v) in g where k != "Data" { found.encoding.properties["GDepth:\(k)"] = v }
                    found.encoding.describe(.depth)
                } else {
                    found.encoding.meaning = "image"
                }
                let mime = xmp.value(namespace, "Mime") ?? ""
                guard let raw = Data(base64Encoded: data, options: .ignoreUnknownCharacters), !raw.isEmpty else {
                    found.problem = "\(name):Data is not valid base64"
                    extras.auxiliaryImages.append(found)
                    continue
                }
                decodeEmbedded([UInt8](raw), mime: mime, type: type, orientation: orientation, decode: decode.wants(found.source), into: &found)
                extras.auxiliaryImages.append(found)
            }
        }

        findMovie(in: bytes, xmp: xmp, imageEnd: imageEnd, into: &extras)
        return extras
    }

    static func mpfImage(
        _ bytes: [UInt8], entry: MPFIndex.Entry, number: Int, semantic: String?, orientation: EXIFOrientation, decode: Bool
    ) -> FoundAuxiliaryImage {
        var found = FoundAuxiliaryImage(type: .other, urn: nil, source: "mpf:\(number)", encoding: AuxiliaryEncoding())
        guard entry.offset >= 0, entry.size > 0, entry.offset + entry.size <= bytes.count else {
            found.problem = "MPF image \(number): offset \(entry.offset) + size \(entry.size) runs past the end of the file (\(bytes.count) bytes)"
            return found
        }
        let image = Array(bytes[entry.offset..<(entry.offset + entry.size)])
        guard let segments = try? JPEGSegments(parsing: image) else {
            found.problem = "MPF image \(number) at offset \(entry.offset) is not a JPEG"
            return found
        }
        let xmp = try? segments.xmp()
        let apdi = xmp?.properties(in: XMPNamespace.apdi) ?? [:]
        var type = AuxiliaryImageType(urn: nil, apdiType: apdi["AuxiliaryImageType"], apdiSubType: apdi["AuxiliaryImageSubType"])
        if type == .other, xmp?.value(XMPNamespace.hdrGainMap, "Version") != nil || semantic == "GainMap" { type = .hdrGainMap }
        if type == .other, entry.type == 0x020002 { type = .disparity }
        found.type = type
        if let xmp { found.encoding.absorb(xmp, type: type) } else { found.encoding.describe(type) }
        if let frame = segments.frame {
            (found.width, found.height) = orientation.displayedSize(width: frame.width, height: frame.height)
            found.bitDepth = frame.precision
            found.channels = frame.components == 1 ? 1 : 3
        }
        decodeEmbedded(image, mime: "image/jpeg", type: type, orientation: orientation, decode: decode, into: &found)
        return found
    }

    /// Decodes an embedded PNG or JPEG into `found`, oriented like the photo.
    static func decodeEmbedded(
        _ data: [UInt8], mime: String, type: AuxiliaryImageType, orientation: EXIFOrientation, decode: Bool,
        into found: inout FoundAuxiliaryImage
    ) {
        let isPNG = data.starts(with: [0x89, 0x50, 0x4E, 0x47])
        let isJPEG = data.starts(with: [0xFF, 0xD8])
        guard isPNG || isJPEG else {
            found.problem = "the embedded \(mime.isEmpty ? "image" : mime) is neither PNG nor JPEG data"
            return
        }
        let single = type != .other && type != .hdrGainMap
        if !decode {
            // The facts from the headers. A depth map or matte kept as colour PNG (GDepth's
            // are RGB with equal channels) is decoded to tell: one channel when they are
            // equal, as decoding makes it (such maps are small).
            if isJPEG, let frame = try? JPEGSegments(parsing: data).frame {
                (found.width, found.height) = orientation.displayedSize(width: frame.width, height: frame.height)
                (found.bitDepth, found.channels) = (frame.precision, frame.components == 1 || single ? 1 : 3)
            } else if isPNG, let chunks = try? PNGChunks(parsing: data) {
                (found.width, found.height) = orientation.displayedSize(width: chunks.width, height: chunks.height)
                found.bitDepth = chunks.bitDepth
                found.channels = chunks.channels
                if single, chunks.channels > 1, let decoded = try? PNGCodec.decodeSamples(data).samples {
                    found.channels = decoded.gray == nil ? decoded.channels : 1
                }
            }
            return
        }
        do {
            let samples: ImageSamples
            if isPNG {
                let decoded = try PNGCodec.decodeSamples(data).samples
                // A depth map or matte stored as RGB with equal channels (GDepth's PNGs) is
                // one channel, like every other.
                samples = type != .other && type != .hdrGainMap ? decoded.gray ?? decoded : decoded
            } else {
                let decoded = try JPEGCodec.decode(data, output: single ? .gray : .asStored)
                samples = .eight(decoded.pixels)
            }
            let oriented = samples.applying(orientation)
            found.samples = oriented
            (found.width, found.height, found.channels, found.bitDepth) = (oriented.width, oriented.height, oriented.channels, oriented.bitDepth)
        } catch {
            found.problem = "cannot decode the embedded \(isPNG ? "PNG" : "JPEG"): \(MediaAnalyzer.describe(error))"
        }
    }

    // MARK: Movies

    static func findMovie(in bytes: [UInt8], xmp: XMPPacket?, imageEnd: Int?, into extras: inout StillExtras) {
        do {
            if let movie = try EmbeddedMovie.find(in: bytes, xmp: xmp, imageEnd: imageEnd) {
                extras.movie = movie
                if let note = movie.note { extras.warnings.append("Motion Photo: \(note)") }
            } else if let end = imageEnd, let movie = EmbeddedMovie.undeclared(in: bytes, after: end) {
                extras.warnings.append(
                    "a \(movie.count)-byte movie is appended after the image but no Motion Photo metadata declares it; it stays in the original, not extracted")
            }
        } catch {
            extras.warnings.append("\(error)")
        }
    }
}

/// Which auxiliary images a scan decodes: none (their facts come from the container),
/// all, or those found at the given sources (`heif:item/N`, `mpf:N`, …). `true` and
/// `false` stand for all and none.
public enum AuxiliaryDecoding: Sendable, ExpressibleByBooleanLiteral {
    case none, all
    case only(Set<String>)

    public init(booleanLiteral value: Bool) { self = value ? .all : .none }

    func wants(_ source: String) -> Bool {
        switch self {
        case .none: false
        case .all: true
        case .only(let sources): sources.contains(source)
        }
    }
}
