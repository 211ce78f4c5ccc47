/// A PNG's chunks read independently of camlib's own parsers, for tests that check what
/// camlib writes.
public enum PNGFile {
    /// Every chunk's type and data, in file order; nil when this is not a PNG.
    public static func chunks(_ png: [UInt8]) -> [(type: String, data: ArraySlice<UInt8>)]? {
        guard png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        var out: [(String, ArraySlice<UInt8>)] = []
        var at = 8
        while at + 12 <= png.count {
            let length = png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            guard at + 12 + length <= png.count else { return nil }
            out.append((type, png[(at + 8)..<(at + 8 + length)]))
            at += 12 + length
            if type == "IEND" { break }
        }
        return out
    }

    /// The text chunks, keyword to text: tEXt, and iTXt when uncompressed (a compressed
    /// one reads as "<compressed>").
    public static func texts(_ png: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for (type, data) in chunks(png) ?? [] where type == "tEXt" || type == "iTXt" {
            guard let end = data.firstIndex(of: 0) else { continue }
            let keyword = String(decoding: data[..<end], as: UTF8.self)
            var rest = data[(end + 1)...]
            if type == "iTXt" {
                guard rest.first == 0 else { out[keyword] = "<compressed>"; continue }
                rest = rest.dropFirst(2)
                for _ in 0..<2 {
                    guard let zero = rest.firstIndex(of: 0) else { break }
                    rest = rest[(zero + 1)...]
                }
            }
            out[keyword] = String(decoding: rest, as: UTF8.self)
        }
        return out
    }

    /// The sBIT chunk's first value (gray, or red), when there is one.
    public static func significantBits(_ png: [UInt8]) -> Int? {
        (chunks(png) ?? []).first { $0.type == "sBIT" }.flatMap { $0.data.first.map(Int.init) }
    }
}
