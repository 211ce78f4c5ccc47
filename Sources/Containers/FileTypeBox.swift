/// The `ftyp` box: what a file says it is.
public struct FileTypeBox: Sendable, Equatable {
    public let majorBrand: String
    public let minorVersion: UInt32
    public let compatibleBrands: [String]

    public var allBrands: [String] { [majorBrand] + compatibleBrands }

    /// Reads an `ftyp` box at the start of `bytes`; nil when the file does not start with one.
    public init?(fileStart bytes: [UInt8]) {
        let r = ByteReader(bytes, context: "ftyp")
        guard let size = try? r.u32(at: 0), let type = try? r.fourCC(at: 4), type == "ftyp",
            size >= 16, let major = try? r.fourCC(at: 8), let minor = try? r.u32(at: 12)
        else { return nil }
        majorBrand = major
        minorVersion = minor
        let end = min(Int(size), bytes.count)
        compatibleBrands = stride(from: 16, to: end - 3, by: 4).compactMap { try? r.fourCC(at: $0) }
    }
}
