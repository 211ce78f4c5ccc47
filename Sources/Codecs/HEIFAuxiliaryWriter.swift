import Containers
import Foundation
import Imaging

/// Attaches an auxiliary image (depth, a matte, …) to a HEIF file without re-encoding
/// anything already in it: the coded images keep their bytes; the meta box gains one
/// monochrome HEVC item with an `auxC` URN, an `auxl` reference to the primary image, the
/// primary's `irot`/`imir` (so the aux image turns with the photo), and its coded data
/// goes into a new `mdat` at the end. Items stored after the meta box move by the meta
/// box's growth, and their `iloc` offsets with them.
public enum HEIFAuxiliaryWriter {
    public struct Options: Sendable {
        /// Keep every sample exactly (x265 lossless); otherwise lossy at `quality`.
        public var lossless = true
        public var quality = 90
        public init() {}
    }

    /// The new file's bytes. `samples` are one channel, in the photo's displayed
    /// orientation and aspect ratio (as `camlib aux extract` gives them).
    public static func attach(
        to fileBytes: [UInt8], path: String, samples: ImageSamples, urn: String, options: Options = Options()
    ) throws -> [UInt8] {
        // What libheif sees: the primary's displayed size and orientation, and its aux types.
        let file = try HEIFFile(path: path)
        let primary = try file.primaryImage()
        let existing = primary.auxiliaryImages().images.map(\.urn)
        guard !existing.contains(urn) else {
            throw HEIFError(code: -1, subcode: 0, message: "the photo already has an auxiliary image \(urn)", context: "attaching")
        }
        guard samples.channels == 1 else {
            throw HEIFError(code: -1, subcode: 0, message: "the image has \(samples.channels) channels; an auxiliary image has one (gray)", context: "attaching")
        }
        let photoAspect = Double(primary.width) / Double(max(primary.height, 1))
        let auxAspect = Double(samples.width) / Double(max(samples.height, 1))
        guard abs(photoAspect / auxAspect - 1) < 0.02 else {
            throw HEIFError(
                code: -1, subcode: 0,
                message: "the image is \(samples.width)x\(samples.height) but the photo is displayed \(primary.width)x\(primary.height); give it in the photo's displayed orientation and shape",
                context: "attaching")
        }
        let stored = samples.applying(primary.orientation.inverse)
        let encodedFile = try HEIFEncoder.encodeMonochrome(stored, lossless: options.lossless, quality: options.quality)
        let encoded = try HEIFMetaBox(file: encodedFile)
        let codedData = try encoded.data(of: encoded.primaryItemID, in: encodedFile)

        var meta = try HEIFMetaBox(file: fileBytes)
        let photo = meta.primaryItemID
        let item = meta.addItem(type: "hvc1", hidden: true)
        // The coded image's own properties; clap (libheif pads odd sizes and crops back)
        // must come before the photo's irot/imir, in association order.
        for property in encoded.properties(of: encoded.primaryItemID) where ["hvcC", "ispe", "pixi", "clap"].contains(property.type) {
            meta.associate(item, property: meta.addProperty(property.box), essential: property.type == "hvcC" || property.type == "clap")
        }
        var auxC = ISOBoxWriter()
        auxC.box("auxC", version: 0) { $0.cString(urn) }
        meta.associate(item, property: meta.addProperty(auxC.bytes), essential: true)
        // The photo's own rotation and mirror properties, shared.
        for property in meta.properties(of: photo) where property.type == "irot" || property.type == "imir" {
            meta.associate(item, property: property.association.index, essential: property.association.essential)
        }
        meta.references.append(.init(type: "auxl", from: item, to: [photo]))

        // A file whose last box runs "to the end" (size 0) gets an explicit size first.
        var original = fileBytes
        if let last = ISOBox.sequence(in: original, from: 0, limit: original.count).last,
            original[last.offset..<(last.offset + 4)].allSatisfy({ $0 == 0 })
        {
            guard last.size <= Int(UInt32.max) else {
                throw HEIFError(code: -1, subcode: 0, message: "the file's last box is too large to resize", context: "attaching")
            }
            original.replaceSubrange(last.offset..<(last.offset + 4), with: withUnsafeBytes(of: UInt32(last.size).bigEndian, Array.init))
        }
        let mdatHeader = codedData.count + 8 <= Int(UInt32.max) ? 8 : 16
        // In the old file's coordinates: serialisation shifts it with everything after meta.
        meta.locations.append(
            .init(
                itemID: item, constructionMethod: 0, dataReferenceIndex: 0, baseOffset: 0,
                extents: [.init(index: 0, offset: UInt64(original.count + mdatHeader), length: UInt64(codedData.count))]))
        let end = meta.originalRange.upperBound
        let draft = try meta.serialized(shiftingOffsetsFrom: end, by: 0)
        let shift = draft.count - meta.originalRange.count
        let newMeta = try meta.serialized(shiftingOffsetsFrom: end, by: shift)
        guard newMeta.count == draft.count else {
            throw HEIFError(code: -1, subcode: 0, message: "internal error: the meta box changed size while shifting offsets", context: "attaching")
        }
        var mdat = ISOBoxWriter()
        mdat.box("mdat") { $0.raw(codedData) }
        return Array(original[..<meta.originalRange.lowerBound]) + newMeta + Array(original[end...]) + mdat.bytes
    }
}
