/// The item structure of a HEIF file's `meta` box (ISO/IEC 23008-12), read into values
/// that can be changed and written back: item infos (`iinf`), locations (`iloc`),
/// references (`iref`), properties and their associations (`iprp`: `ipco` + `ipma`).
/// Children camlib does not change (`hdlr`, `pitm`, `idat`, `grpl`, …) are kept as
/// their bytes.
///
/// Used to attach an auxiliary image to a HEIC without touching its coded images:
/// ```swift
/// var meta = try HEIFMetaBox(file: bytes)
/// let id = meta.addItem(type: "hvc1")
/// ```
public struct HEIFMetaBox: Sendable {
    public struct Extent: Sendable, Equatable {
        public var index: UInt64
        public var offset: UInt64
        public var length: UInt64

        public init(index: UInt64, offset: UInt64, length: UInt64) {
            (self.index, self.offset, self.length) = (index, offset, length)
        }
    }

    public struct Location: Sendable, Equatable {
        public var itemID: UInt32
        /// 0: file offsets, 1: inside `idat`, 2: from another item.
        public var constructionMethod: UInt16
        public var dataReferenceIndex: UInt16
        public var baseOffset: UInt64
        public var extents: [Extent]

        public init(itemID: UInt32, constructionMethod: UInt16, dataReferenceIndex: UInt16, baseOffset: UInt64, extents: [Extent]) {
            self.itemID = itemID
            self.constructionMethod = constructionMethod
            self.dataReferenceIndex = dataReferenceIndex
            self.baseOffset = baseOffset
            self.extents = extents
        }
    }

    public struct Reference: Sendable, Equatable {
        public var type: String
        public var from: UInt32
        public var to: [UInt32]

        public init(type: String, from: UInt32, to: [UInt32]) {
            (self.type, self.from, self.to) = (type, from, to)
        }
    }

    public struct Association: Sendable, Equatable {
        public var essential: Bool
        /// 1-based index into `properties`.
        public var index: Int
    }

    /// Item id → its `infe` box bytes, in file order.
    public private(set) var itemInfos: [(id: UInt32, type: String, box: [UInt8])] = []
    public var locations: [Location] = []
    public var references: [Reference] = []
    /// `ipco` children, each a whole box; association indices count from 1.
    public var properties: [[UInt8]] = []
    public var associations: [UInt32: [Association]] = [:]
    public private(set) var primaryItemID: UInt32 = 0

    /// Where the meta box was in the file it was read from.
    public let originalRange: Range<Int>
    /// The meta box's children in order; the ones camlib rewrites are placeholders.
    private var layout: [Child] = []
    private let metaVersionFlags: [UInt8]
    /// The `idat` box's payload: data of items stored with construction method 1.
    public private(set) var itemData: [UInt8] = []
    private var ilocIndexSize = 0

    private enum Child: Sendable {
        case raw([UInt8])
        case iinf, iloc, iref, iprp
    }

    /// Reads the top-level `meta` box of a HEIF file.
    public init(file bytes: [UInt8]) throws {
        guard let meta = ISOBox.sequence(in: bytes, from: 0, limit: bytes.count).first(where: { $0.type == "meta" }) else {
            throw FormatError("HEIF", "no top-level meta box")
        }
        guard meta.payload.count >= 4 else { throw FormatError("HEIF", "the meta box is too short") }
        originalRange = meta.offset..<meta.end
        metaVersionFlags = Array(bytes[meta.payload.lowerBound..<(meta.payload.lowerBound + 4)])
        var sawIref = false
        for child in meta.children(in: bytes, skip: 4) {
            let r = ByteReader(Array(bytes[child.offset..<child.end]), context: "HEIF \(child.type) box")
            let body = child.headerSize
            switch child.type {
            case "pitm":
                let version = try r.u8(at: body)
                primaryItemID = version == 0 ? UInt32(try r.u16(at: body + 4)) : try r.u32(at: body + 4)
                layout.append(.raw(r.bytes))
            case "iinf":
                try readItemInfos(r, body: body)
                layout.append(.iinf)
            case "iloc":
                try readLocations(r, body: body)
                layout.append(.iloc)
            case "iref":
                try readReferences(r, body: body)
                layout.append(.iref)
                sawIref = true
            case "iprp":
                try readProperties(r, body: body)
                layout.append(.iprp)
            case "idat":
                itemData = Array(r.bytes[body...])
                layout.append(.raw(r.bytes))
            default:
                layout.append(.raw(r.bytes))
            }
        }
        if !sawIref {
            // Goes after iloc, where writers usually put it.
            let at = (layout.firstIndex { if case .iloc = $0 { true } else { false } } ?? layout.count - 1) + 1
            layout.insert(.iref, at: at)
        }
        guard primaryItemID != 0 else { throw FormatError("HEIF", "no primary item (pitm)") }
    }

    // MARK: Reading

    private mutating func readItemInfos(_ r: ByteReader, body: Int) throws {
        let version = try r.u8(at: body)
        var pos = body + 4 + (version == 0 ? 2 : 4)
        for infe in ISOBox.sequence(in: r.bytes, from: pos, limit: r.count) where infe.type == "infe" {
            let v = try r.u8(at: infe.payload.lowerBound)
            guard v >= 2 else { continue }  // versions 0/1 predate item types; not used by HEIF
            let p = infe.payload.lowerBound + 4
            let id = v == 2 ? UInt32(try r.u16(at: p)) : try r.u32(at: p)
            let typeAt = p + (v == 2 ? 2 : 4) + 2
            itemInfos.append((id, try r.fourCC(at: typeAt), Array(r.bytes[infe.offset..<infe.end])))
            pos = infe.end
        }
    }

    private mutating func readLocations(_ r: ByteReader, body: Int) throws {
        let version = try r.u8(at: body)
        var p = body + 4
        let sizes = try r.u8(at: p)
        let sizes2 = try r.u8(at: p + 1)
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(sizes2 >> 4)
        let indexSize = version >= 1 ? Int(sizes2 & 15) : 0
        ilocIndexSize = indexSize
        p += 2
        let count: Int
        if version < 2 {
            count = Int(try r.u16(at: p))
            p += 2
        } else {
            count = Int(try r.u32(at: p))
            p += 4
        }
        func uint(_ size: Int) throws -> UInt64 {
            defer { p += size }
            switch size {
            case 0: return 0
            case 4: return UInt64(try r.u32(at: p))
            case 8: return try r.u64(at: p)
            default: throw FormatError("HEIF iloc", "field size \(size) is not 0, 4 or 8")
            }
        }
        for _ in 0..<count {
            let id: UInt32
            if version < 2 {
                id = UInt32(try r.u16(at: p))
                p += 2
            } else {
                id = try r.u32(at: p)
                p += 4
            }
            var method: UInt16 = 0
            if version >= 1 {
                method = try r.u16(at: p) & 15
                p += 2
            }
            let dataRef = try r.u16(at: p)
            p += 2
            let base = try uint(baseSize)
            let extentCount = Int(try r.u16(at: p))
            p += 2
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                let index = indexSize > 0 ? try uint(indexSize) : 0
                let offset = try uint(offsetSize)
                let length = try uint(lengthSize)
                extents.append(Extent(index: index, offset: offset, length: length))
            }
            locations.append(Location(itemID: id, constructionMethod: method, dataReferenceIndex: dataRef, baseOffset: base, extents: extents))
        }
    }

    private mutating func readReferences(_ r: ByteReader, body: Int) throws {
        let version = try r.u8(at: body)
        for ref in ISOBox.sequence(in: r.bytes, from: body + 4, limit: r.count) {
            var p = ref.payload.lowerBound
            let from: UInt32
            if version == 0 {
                from = UInt32(try r.u16(at: p))
                p += 2
            } else {
                from = try r.u32(at: p)
                p += 4
            }
            let n = Int(try r.u16(at: p))
            p += 2
            var to: [UInt32] = []
            for _ in 0..<n {
                if version == 0 {
                    to.append(UInt32(try r.u16(at: p)))
                    p += 2
                } else {
                    to.append(try r.u32(at: p))
                    p += 4
                }
            }
            references.append(Reference(type: ref.type, from: from, to: to))
        }
    }

    private mutating func readProperties(_ r: ByteReader, body: Int) throws {
        for child in ISOBox.sequence(in: r.bytes, from: body, limit: r.count) {
            if child.type == "ipco" {
                for property in child.children(in: r.bytes) { properties.append(Array(r.bytes[property.offset..<property.end])) }
            } else if child.type == "ipma" {
                var p = child.payload.lowerBound
                let version = try r.u8(at: p)
                let flags = try r.u32(at: p) & 0xFFFFFF
                p += 4
                let count = Int(try r.u32(at: p))
                p += 4
                for _ in 0..<count {
                    let id: UInt32
                    if version < 1 {
                        id = UInt32(try r.u16(at: p))
                        p += 2
                    } else {
                        id = try r.u32(at: p)
                        p += 4
                    }
                    let n = Int(try r.u8(at: p))
                    p += 1
                    var list: [Association] = []
                    for _ in 0..<n {
                        if flags & 1 != 0 {
                            let v = try r.u16(at: p)
                            p += 2
                            list.append(Association(essential: v & 0x8000 != 0, index: Int(v & 0x7FFF)))
                        } else {
                            let v = try r.u8(at: p)
                            p += 1
                            list.append(Association(essential: v & 0x80 != 0, index: Int(v & 0x7F)))
                        }
                    }
                    associations[id, default: []] += list
                }
            }
        }
    }

    // MARK: Queries

    /// The type of a property box ("irot", "hvcC", …) at a 1-based index.
    public func propertyType(_ index: Int) -> String? {
        guard index >= 1, index <= properties.count, properties[index - 1].count >= 8 else { return nil }
        return String(decoding: properties[index - 1][4..<8], as: UTF8.self)
    }

    /// The property boxes associated with an item, with their types.
    public func properties(of item: UInt32) -> [(type: String, association: Association, box: [UInt8])] {
        (associations[item] ?? []).compactMap { a in
            propertyType(a.index).map { ($0, a, properties[a.index - 1]) }
        }
    }

    public func location(of item: UInt32) -> Location? { locations.first { $0.itemID == item } }

    /// The bytes of an item stored by file offset or in `idat` (construction methods 0 and
    /// 1): its extents, concatenated.
    public func data(of item: UInt32, in file: [UInt8]) throws -> [UInt8] {
        guard let loc = location(of: item) else { throw FormatError("HEIF", "item \(item) has no location") }
        guard loc.constructionMethod <= 1, loc.dataReferenceIndex == 0 else {
            throw FormatError("HEIF", "item \(item) is stored by reference to other items or files")
        }
        // Method 0: offsets in the file; method 1: offsets in the idat box.
        let file = loc.constructionMethod == 0 ? file : itemData
        var out: [UInt8] = []
        let size = UInt64(file.count)
        for e in loc.extents {
            let (start, overflow) = loc.baseOffset.addingReportingOverflow(e.offset)
            let length = e.length == 0 && start <= size ? size - start : e.length
            guard !overflow, start <= size, length <= size - start else {
                throw FormatError("HEIF", "item \(item)'s data runs past the end of the file")
            }
            out += file[Int(start)..<Int(start + length)]
        }
        return out
    }

    // MARK: Changing

    /// Adds an item info (`infe` version 2, or 3 for large ids) and returns the new id.
    /// A `mime` item names its `contentType` (XMP: application/rdf+xml).
    public mutating func addItem(type: String, name: String = "", contentType: String? = nil, hidden: Bool = false) -> UInt32 {
        let id = (itemInfos.map(\.id) + locations.map(\.itemID) + [primaryItemID]).max()! + 1
        var w = ISOBoxWriter()
        w.box("infe", version: id > 0xFFFF ? 3 : 2, flags: hidden ? 1 : 0) { b in
            if id > 0xFFFF { b.u32(id) } else { b.u16(UInt16(id)) }
            b.u16(0)
            b.fourCC(type)
            b.cString(name)
            if type == "mime" { b.cString(contentType ?? "application/octet-stream") }
        }
        itemInfos.append((id, type, w.bytes))
        return id
    }

    /// The `infe` box of an item.
    public func itemInfo(_ id: UInt32) -> (type: String, box: [UInt8])? {
        itemInfos.first { $0.id == id }.map { ($0.type, $0.box) }
    }

    /// Adds a copy of another file's `infe` box under a new id and returns the id.
    public mutating func addItem(copying infe: [UInt8]) throws -> UInt32 {
        let id = (itemInfos.map(\.id) + locations.map(\.itemID) + [primaryItemID]).max()! + 1
        guard infe.count >= 16 else { throw FormatError("HEIF", "an infe box is too short") }
        var box = infe
        switch box[8] {
        case 2:
            guard id <= 0xFFFF else { throw FormatError("HEIF", "too many items for a version 2 infe") }
            box[12] = UInt8(id >> 8)
            box[13] = UInt8(id & 0xFF)
        case 3:
            guard box.count >= 18 else { throw FormatError("HEIF", "an infe box is too short") }
            for i in 0..<4 { box[12 + i] = UInt8((id >> UInt32(24 - 8 * i)) & 0xFF) }
        default:
            throw FormatError("HEIF", "infe version \(box[8]) is not supported")
        }
        let type = String(decoding: box[(box[8] == 2 ? 16 : 18)..<(box[8] == 2 ? 20 : 22)], as: UTF8.self)
        itemInfos.append((id, type, box))
        return id
    }

    /// Appends a property box and returns its 1-based index.
    public mutating func addProperty(_ box: [UInt8]) -> Int {
        properties.append(box)
        return properties.count
    }

    public mutating func associate(_ item: UInt32, property index: Int, essential: Bool) {
        associations[item, default: []].append(Association(essential: essential, index: index))
    }

    /// Marks every association with a property of these types essential, on every item
    /// (MIAF: a reader that does not understand a transform must not show the image).
    public mutating func markEssential(_ types: Set<String>) {
        for (item, list) in associations {
            associations[item] = list.map { a in
                var a = a
                if let type = propertyType(a.index), types.contains(type) { a.essential = true }
                return a
            }
        }
    }

    /// The ICC profile in an item's `colr` property (colour type `prof` or `rICC`).
    public func iccProfile(of item: UInt32) -> [UInt8]? {
        for property in properties(of: item) where property.type == "colr" {
            let box = property.box
            guard box.count > 12 else { continue }
            let kind = String(decoding: box[8..<12], as: UTF8.self)
            if kind == "prof" || kind == "rICC" { return Array(box[12...]) }
        }
        return nil
    }

    /// Appends a whole box (a `grpl`, say) to the meta box's children.
    public mutating func appendChild(_ box: [UInt8]) {
        layout.append(.raw(box))
    }

    /// The alternative groups (`altr` in `grpl`) of the file: their entity (item) ids, in
    /// order of preference.
    public static func alternativeGroups(in file: [UInt8]) -> [[UInt32]] {
        guard let meta = ISOBox.sequence(in: file, from: 0, limit: file.count).first(where: { $0.type == "meta" }),
            let grpl = meta.children(in: file, skip: 4).first(where: { $0.type == "grpl" })
        else { return [] }
        return grpl.children(in: file).filter { $0.type == "altr" }.compactMap { group in
            let r = ByteReader(Array(file[group.payload]), context: "HEIF altr box")
            guard let count = try? r.u32(at: 8), count < 1 << 16 else { return nil }
            return try? (0..<Int(count)).map { try r.u32(at: 12 + 4 * $0) }
        }
    }

    // MARK: Writing

    /// The new meta box. File offsets at or after `shiftFrom` (where the old meta box
    /// ended) move by `shift`, because the meta box before them changed size.
    public func serialized(shiftingOffsetsFrom shiftFrom: Int, by shift: Int) throws -> [UInt8] {
        var w = ISOBoxWriter()
        w.raw(Array(metaHeader()))
        for child in layout {
            switch child {
            case .raw(let bytes): w.raw(bytes)
            case .iinf: writeItemInfos(&w)
            case .iloc: try writeLocations(&w, shiftFrom: shiftFrom, shift: shift)
            case .iref: if !references.isEmpty { writeReferences(&w) }
            case .iprp: writeProperties(&w)
            }
        }
        // Patch the meta box size now that the children are known.
        var out = w.bytes
        let size = out.count
        guard size <= Int(UInt32.max) else { throw FormatError("HEIF", "meta box too large") }
        out[0] = UInt8(size >> 24)
        out[1] = UInt8((size >> 16) & 0xFF)
        out[2] = UInt8((size >> 8) & 0xFF)
        out[3] = UInt8(size & 0xFF)
        return out
    }

    private func metaHeader() -> [UInt8] {
        [0, 0, 0, 0] + Array("meta".utf8) + metaVersionFlags
    }

    private func writeItemInfos(_ w: inout ISOBoxWriter) {
        let large = itemInfos.count > 0xFFFF
        w.box("iinf", version: large ? 1 : 0) { b in
            if large { b.u32(UInt32(itemInfos.count)) } else { b.u16(UInt16(itemInfos.count)) }
            for info in itemInfos { b.raw(info.box) }
        }
    }

    private func writeLocations(_ w: inout ISOBoxWriter, shiftFrom: Int, shift: Int) throws {
        func moved(_ absolute: UInt64) -> UInt64 {
            absolute >= UInt64(shiftFrom) ? UInt64(Int64(absolute) + Int64(shift)) : absolute
        }
        var shiftedLocations: [Location] = []
        for var loc in locations {
            if loc.constructionMethod == 0 && loc.dataReferenceIndex == 0 {
                // Offsets that could not point into any file camlib can hold are refused
                // before any arithmetic on them.
                let limit = UInt64(Int64.max / 4)
                guard loc.baseOffset < limit, loc.extents.allSatisfy({ $0.offset < limit && $0.length < limit }) else {
                    throw FormatError("HEIF", "item \(loc.itemID) has an impossible data offset")
                }
                for e in loc.extents {
                    let start = loc.baseOffset + e.offset
                    if start >= UInt64(originalRange.lowerBound) && start < UInt64(originalRange.upperBound) {
                        throw FormatError("HEIF", "item \(loc.itemID) has its data inside the meta box; camlib cannot rewrite this file safely")
                    }
                }
                if loc.baseOffset >= UInt64(shiftFrom) {
                    loc.baseOffset = moved(loc.baseOffset)
                } else {
                    for i in loc.extents.indices where loc.baseOffset + loc.extents[i].offset >= UInt64(shiftFrom) {
                        loc.extents[i].offset = moved(loc.baseOffset + loc.extents[i].offset) - loc.baseOffset
                    }
                }
            }
            shiftedLocations.append(loc)
        }
        let maxID = shiftedLocations.map(\.itemID).max() ?? 0
        let version: UInt8 = maxID > 0xFFFF ? 2 : 1
        let big = shiftedLocations.contains { l in
            l.baseOffset > UInt64(UInt32.max) || l.extents.contains { $0.offset > UInt64(UInt32.max) || $0.length > UInt64(UInt32.max) }
        }
        let size = big ? 8 : 4
        let indexSize = ilocIndexSize
        w.box("iloc", version: version) { b in
            b.u8(UInt8(size << 4 | size))
            b.u8(UInt8(size << 4 | indexSize))
            if version < 2 { b.u16(UInt16(shiftedLocations.count)) } else { b.u32(UInt32(shiftedLocations.count)) }
            for loc in shiftedLocations {
                if version < 2 { b.u16(UInt16(loc.itemID)) } else { b.u32(loc.itemID) }
                b.u16(loc.constructionMethod)
                b.u16(loc.dataReferenceIndex)
                b.uint(loc.baseOffset, size: size)
                b.u16(UInt16(loc.extents.count))
                for e in loc.extents {
                    if indexSize > 0 { b.uint(e.index, size: indexSize) }
                    b.uint(e.offset, size: size)
                    b.uint(e.length, size: size)
                }
            }
        }
    }

    private func writeReferences(_ w: inout ISOBoxWriter) {
        let large = references.contains { $0.from > 0xFFFF || $0.to.contains { $0 > 0xFFFF } }
        w.box("iref", version: large ? 1 : 0) { b in
            for ref in references {
                b.box(ref.type) { r in
                    if large { r.u32(ref.from) } else { r.u16(UInt16(ref.from)) }
                    r.u16(UInt16(ref.to.count))
                    for id in ref.to { if large { r.u32(id) } else { r.u16(UInt16(id)) } }
                }
            }
        }
    }

    private func writeProperties(_ w: inout ISOBoxWriter) {
        let items = associations.keys.sorted()
        let largeIDs = items.contains { $0 > 0xFFFF }
        let wideIndex = properties.count > 127
        w.box("iprp") { b in
            b.box("ipco") { c in for p in properties { c.raw(p) } }
            b.box("ipma", version: largeIDs ? 1 : 0, flags: wideIndex ? 1 : 0) { m in
                m.u32(UInt32(items.count))
                for id in items {
                    if largeIDs { m.u32(id) } else { m.u16(UInt16(id)) }
                    let list = associations[id]!
                    m.u8(UInt8(list.count))
                    for a in list {
                        if wideIndex { m.u16(UInt16(a.index) | (a.essential ? 0x8000 : 0)) } else { m.u8(UInt8(a.index) | (a.essential ? 0x80 : 0)) }
                    }
                }
            }
        }
    }
}
