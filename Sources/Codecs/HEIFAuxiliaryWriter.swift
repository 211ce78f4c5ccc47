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
        /// x265's speed preset; libheif's own when nil (see `HEIFEncoder.encodeMonochrome`).
        public var preset: String?
        public init() {}
    }

    /// The new file's bytes. `samples` are one channel, in the photo's displayed
    /// orientation and aspect ratio (as `camlib aux extract` gives them). `auxSubtype`
    /// follows the URN in `auxC` (a depth image's `DepthRepresentation`); `xmp` becomes
    /// the aux image's own metadata item (as Apple describes its mattes and depth).
    public static func attach(
        to fileBytes: [UInt8], samples: ImageSamples, urn: String, auxSubtype: [UInt8] = [], xmp: [UInt8]? = nil,
        options: Options = Options()
    ) throws -> [UInt8] {
        // What libheif sees: the primary's displayed size and orientation, and its aux types.
        let file = try HEIFFile(bytes: fileBytes)
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
        let encodedFile = try HEIFEncoder.encodeMonochrome(stored, lossless: options.lossless, quality: options.quality, preset: options.preset)
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
        auxC.box("auxC", version: 0) {
            $0.cString(urn)
            $0.raw(auxSubtype)
        }
        meta.associate(item, property: meta.addProperty(auxC.bytes), essential: true)
        // The photo's own rotation and mirror properties, shared.
        for property in meta.properties(of: photo) where property.type == "irot" || property.type == "imir" {
            meta.associate(item, property: property.association.index, essential: property.association.essential)
        }
        meta.references.append(.init(type: "auxl", from: item, to: [photo]))
        var appended = [(item, codedData)]
        if let xmp {
            let description = meta.addItem(type: "mime", contentType: "application/rdf+xml", hidden: true)
            meta.references.append(.init(type: "cdsc", from: description, to: [item]))
            appended.append((description, xmp))
        }
        return try assemble(fileBytes, meta: meta, appending: appended)
    }

    /// Writes `meta` into `file` in place of its meta box and appends `data` (each item's
    /// bytes) in one new `mdat`, adding each item's location. Items stored after the meta
    /// box move by its growth.
    static func assemble(_ file: [UInt8], meta: HEIFMetaBox, appending data: [(item: UInt32, bytes: [UInt8])]) throws -> [UInt8] {
        var meta = meta
        // A file whose last box runs "to the end" (size 0) gets an explicit size first.
        var original = file
        if let last = ISOBox.sequence(in: original, from: 0, limit: original.count).last,
            original[last.offset..<(last.offset + 4)].allSatisfy({ $0 == 0 })
        {
            guard last.size <= Int(UInt32.max) else {
                throw HEIFError(code: -1, subcode: 0, message: "the file's last box is too large to resize", context: "writing")
            }
            original.replaceSubrange(last.offset..<(last.offset + 4), with: withUnsafeBytes(of: UInt32(last.size).bigEndian, Array.init))
        }
        let total = data.reduce(0) { $0 + $1.bytes.count }
        let mdatHeader = total + 8 <= Int(UInt32.max) ? 8 : 16
        // In the old file's coordinates: serialisation shifts them with everything after meta.
        var position = original.count + mdatHeader
        for (item, bytes) in data {
            meta.locations.append(
                .init(
                    itemID: item, constructionMethod: 0, dataReferenceIndex: 0, baseOffset: 0,
                    extents: [.init(index: 0, offset: UInt64(position), length: UInt64(bytes.count))]))
            position += bytes.count
        }
        let end = meta.originalRange.upperBound
        let draft = try meta.serialized(shiftingOffsetsFrom: end, by: 0)
        let shift = draft.count - meta.originalRange.count
        let newMeta = try meta.serialized(shiftingOffsetsFrom: end, by: shift)
        guard newMeta.count == draft.count else {
            throw HEIFError(code: -1, subcode: 0, message: "internal error: the meta box changed size while shifting offsets", context: "writing")
        }
        var mdat = ISOBoxWriter()
        if !data.isEmpty { mdat.box("mdat") { box in for (_, bytes) in data { box.raw(bytes) } } }
        return Array(original[..<meta.originalRange.lowerBound]) + newMeta + Array(original[end...]) + mdat.bytes
    }

    /// Copies the auxiliary images of `original`'s primary image (with their tiles, their
    /// metadata items such as Apple's `apdi` XMP, and their own properties, irot/imir
    /// included) into `rendered`, attached to its primary image, and its ISO 21496-1 gain
    /// map (the `tmap` item, its gain-map image and the `altr` group that offers it in
    /// place of the primary image). Nothing is re-encoded. Returns the new file and the
    /// URNs (or `tmap`) carried over; items stored by reference to other items cannot be
    /// copied and are returned in `left`. Every irot, imir, clap and colr of the new file
    /// is marked essential, as MIAF asks.
    public static func carryOverAuxiliaryImages(from original: [UInt8], into rendered: [UInt8]) throws
        -> (bytes: [UInt8], carried: [String], left: [String])
    {
        let source = try HEIFMetaBox(file: original)
        var target = try HEIFMetaBox(file: rendered)
        target.markEssential(["irot", "imir", "clap", "colr"])
        let gainMaps = source.itemInfos.filter { info in
            info.type == "tmap" && source.references.contains { $0.type == "dimg" && $0.from == info.id && $0.to.first == source.primaryItemID }
        }.map(\.id)
        let auxItems = source.references.filter { $0.type == "auxl" && $0.to.contains(source.primaryItemID) }.map(\.from) + gainMaps
        guard !auxItems.isEmpty else { return (try assemble(rendered, meta: target, appending: []), [], []) }

        // Each aux item with what it needs: its tiles (dimg, recursively) and the metadata
        // items that describe it (cdsc).
        var closure: [UInt32: [UInt32]] = [:]
        for aux in auxItems {
            var items: [UInt32] = []
            var todo = [aux]
            while let id = todo.popLast() {
                guard !items.contains(id) else { continue }
                items.append(id)
                // A gain map names the primary image as its base: that one is the render's.
                todo += source.references.filter { $0.type == "dimg" && $0.from == id }.flatMap(\.to).filter { $0 != source.primaryItemID }
                todo += source.references.filter { $0.type == "cdsc" && $0.to.contains(id) && $0.to.count == 1 }.map(\.from)
            }
            closure[aux] = items
        }
        var mapping: [UInt32: UInt32] = [source.primaryItemID: target.primaryItemID]
        var propertyIndex: [[UInt8]: Int] = [:]
        var appended: [(UInt32, [UInt8])] = []
        var carried: [String] = [], left: [String] = []
        for aux in auxItems {
            let urn = gainMaps.contains(aux) ? "tmap" : source.properties(of: aux).first { $0.type == "auxC" }.map { auxType($0.box) } ?? "item \(aux)"
            let items = closure[aux]!
            // Every item must be copyable before any is copied.
            let data: [UInt32: [UInt8]]
            do {
                data = try Dictionary(uniqueKeysWithValues: items.map { ($0, try source.data(of: $0, in: original)) })
            } catch {
                left.append(urn)
                continue
            }
            for id in items where mapping[id] == nil {
                guard let info = source.itemInfo(id) else { continue }
                let newID = try target.addItem(copying: info.box)
                mapping[id] = newID
                for property in source.properties(of: id) {
                    let index = propertyIndex[property.box] ?? target.addProperty(property.box)
                    propertyIndex[property.box] = index
                    target.associate(newID, property: index, essential: property.association.essential)
                }
                appended.append((newID, data[id]!))
            }
            carried.append(urn)
        }
        for ref in source.references where ["auxl", "dimg", "cdsc"].contains(ref.type) {
            guard let from = mapping[ref.from], ref.from != source.primaryItemID else { continue }
            // An aux item may also name items that were not copied (Apple's depth names the
            // ISO gain-map item too); it keeps the ones that exist in the new file. Tiles
            // (dimg) must all be there, in order.
            let to = ref.to.compactMap { mapping[$0] }
            guard !to.isEmpty, ref.type != "dimg" || to.count == ref.to.count else { continue }
            target.references.append(.init(type: ref.type, from: from, to: to))
        }
        // The alternatives (the gain map's tone-mapped image, or the primary image) whose
        // items all came along; group ids follow the largest item id.
        let groups = HEIFMetaBox.alternativeGroups(in: original).compactMap { ids -> [UInt32]? in
            let mapped = ids.compactMap { mapping[$0] }
            return mapped.count == ids.count && ids.contains(source.primaryItemID) && ids.count > 1 ? mapped : nil
        }
        if !groups.isEmpty {
            var nextID = (target.itemInfos.map(\.id).max() ?? 0) + 1
            var grpl = ISOBoxWriter()
            grpl.box("grpl") { list in
                for ids in groups {
                    list.box("altr", version: 0) { altr in
                        altr.u32(nextID)
                        altr.u32(UInt32(ids.count))
                        for id in ids { altr.u32(id) }
                    }
                    nextID += 1
                }
            }
            target.appendChild(grpl.bytes)
        }
        return (try assemble(rendered, meta: target, appending: appended), carried, left)
    }

    /// Puts `original`'s ISO 21496-1 gain map back over `rendered`, a render whose shape
    /// changed (a crop, a turn) and whose auxiliary images were reshaped and attached
    /// again: a new `tmap` item with the original's metadata (the gain curves do not
    /// depend on the shape) and properties, its size now the render's, deriving from the
    /// render's primary image and the reshaped gain-map image (the render's auxiliary image
    /// of the same URN), and the `altr` group that offers it in place of the primary image.
    /// The original unchanged when it has no gain map; an error saying why when its gain
    /// map cannot follow (its gain-map image is not one of the photo's auxiliary images,
    /// as Apple's is, or the render lacks it).
    public static func carryOverToneMap(from original: [UInt8], into rendered: [UInt8]) throws -> [UInt8] {
        let source = try HEIFMetaBox(file: original)
        guard let tmap = source.itemInfos.first(where: { $0.type == "tmap" }),
            let derivation = source.references.first(where: { $0.type == "dimg" && $0.from == tmap.id })
        else { return rendered }
        guard derivation.to.count == 2, derivation.to[0] == source.primaryItemID else {
            throw HEIFError(code: -1, subcode: 0, message: "its tmap item does not derive from the primary image and one gain map", context: "carrying the gain map")
        }
        let gainMap = derivation.to[1]
        func urn(_ meta: HEIFMetaBox, _ item: UInt32) -> String? {
            meta.properties(of: item).first { $0.type == "auxC" }.map { auxType($0.box) }
        }
        guard let gainURN = urn(source, gainMap), source.references.contains(where: { $0.type == "auxl" && $0.from == gainMap }) else {
            throw HEIFError(code: -1, subcode: 0, message: "its gain-map image is not an auxiliary image of the photo, which camlib reshapes", context: "carrying the gain map")
        }
        var target = try HEIFMetaBox(file: rendered)
        let primary = target.primaryItemID
        guard let reshaped = target.references.first(where: { $0.type == "auxl" && $0.to.contains(primary) && urn(target, $0.from) == gainURN })?.from else {
            throw HEIFError(code: -1, subcode: 0, message: "the render has no \(gainURN) to derive it from", context: "carrying the gain map")
        }
        guard HEIFMetaBox.alternativeGroups(in: rendered).isEmpty else {
            throw HEIFError(code: -1, subcode: 0, message: "the render already has alternative groups", context: "carrying the gain map")
        }
        // The tmap's size is its output's: the original's was its primary's as stored, or
        // as displayed (Apple's); the new one is the render's, the same way.
        func size(_ meta: HEIFMetaBox, _ item: UInt32) -> (Int, Int)? {
            guard let box = meta.properties(of: item).first(where: { $0.type == "ispe" })?.box, box.count >= 20 else { return nil }
            let r = ByteReader(box, context: "ispe")
            guard let w = try? r.u32(at: 12), let h = try? r.u32(at: 16) else { return nil }
            return (Int(w), Int(h))
        }
        guard let sourceSize = size(source, tmap.id), let stored = size(source, source.primaryItemID), let renderStored = size(target, primary) else {
            throw HEIFError(code: -1, subcode: 0, message: "an image has no size (ispe)", context: "carrying the gain map")
        }
        let asStored = sourceSize == stored
        let turned = !asStored && sourceSize == (stored.1, stored.0)
        guard asStored || turned else {
            throw HEIFError(
                code: -1, subcode: 0, message: "its tmap is \(sourceSize.0)x\(sourceSize.1), neither the photo's size nor its turn", context: "carrying the gain map")
        }
        let newSize = asStored ? renderStored : (renderStored.1, renderStored.0)
        var ispe = ISOBoxWriter()
        ispe.box("ispe", version: 0) {
            $0.u32(UInt32(newSize.0))
            $0.u32(UInt32(newSize.1))
        }
        let data = try source.data(of: tmap.id, in: original)
        let item = try target.addItem(copying: tmap.box)
        for property in source.properties(of: tmap.id) {
            target.associate(item, property: target.addProperty(property.type == "ispe" ? ispe.bytes : property.box), essential: property.association.essential)
        }
        target.references.append(.init(type: "dimg", from: item, to: [primary, reshaped]))
        var grpl = ISOBoxWriter()
        grpl.box("grpl") { list in
            list.box("altr", version: 0) { altr in
                altr.u32((target.itemInfos.map(\.id).max() ?? item) + 1)
                altr.u32(2)
                altr.u32(item)
                altr.u32(primary)
            }
        }
        target.appendChild(grpl.bytes)
        return try assemble(rendered, meta: target, appending: [(item, data)])
    }

    /// The URN in an `auxC` box.
    static func auxType(_ box: [UInt8]) -> String {
        guard box.count > 12 else { return "" }
        return String(decoding: box[12...].prefix { $0 != 0 }, as: UTF8.self)
    }
}
