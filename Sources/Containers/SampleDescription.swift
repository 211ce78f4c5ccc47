/// A visual sample description (`stsd` with one entry, `avc1`/`hvc1`/…): the boxes after
/// the entry's 78 bytes of fixed fields (avcC/hvcC, pasp, colr, btrt, …).
public enum SampleDescription {
    /// Bytes of fixed fields in a visual sample entry, after its 8-byte box header.
    static let visualEntryFields = 78

    /// `target` with the boxes of `types` that `source`'s first entry has (in the source's
    /// order) in place of its own: a re-encoded track keeps its original's pixel aspect
    /// ratio (`pasp`) and clean aperture (`clap`). `target` as it was when either does not
    /// parse as one visual entry.
    public static func carrying(_ types: Set<String>, from source: [UInt8], into target: [UInt8]) -> [UInt8] {
        guard let sourceEntry = entry(source), let targetEntry = entry(target) else { return target }
        let carried = children(of: sourceEntry, in: source).filter { types.contains($0.type) }
        guard !carried.isEmpty else { return target }
        let kept = children(of: targetEntry, in: target).filter { !types.contains($0.type) }
        var body = Array(target[(targetEntry.offset + 8)..<(targetEntry.offset + 8 + visualEntryFields)])
        for box in kept { body += target[box.offset..<box.end] }
        for box in carried { body += source[box.offset..<box.end] }
        var entryBox = ISOBoxWriter()
        entryBox.box(targetEntry.type) { $0.raw(body) }
        var stsd = ISOBoxWriter()
        stsd.box("stsd", version: 0) { b in
            b.u32(1)
            b.raw(entryBox.bytes)
        }
        return stsd.bytes
    }

    /// The width and height in the first visual entry's fixed fields (after 16 bytes of
    /// reserved fields, data reference index and pre-defined ones), or nil.
    public static func frameSize(_ stsd: [UInt8]) -> (width: Int, height: Int)? {
        guard let e = entry(stsd) else { return nil }
        let at = e.offset + 8 + 24
        return (Int(stsd[at]) << 8 | Int(stsd[at + 1]), Int(stsd[at + 2]) << 8 | Int(stsd[at + 3]))
    }

    /// The only entry of a whole `stsd` box.
    static func entry(_ stsd: [UInt8]) -> ISOBox? {
        guard let box = ISOBox.sequence(in: stsd, from: 0, limit: stsd.count).first, box.type == "stsd" else { return nil }
        let entries = box.children(in: stsd, skip: 8)
        guard entries.count == 1, let entry = entries.first, entry.size >= 8 + visualEntryFields else { return nil }
        return entry
    }

    static func children(of entry: ISOBox, in bytes: [UInt8]) -> [ISOBox] {
        ISOBox.sequence(in: bytes, from: entry.offset + 8 + visualEntryFields, limit: entry.end)
    }
}
