/// What kind of file something is, told from its first bytes rather than its name.
public enum MediaFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, heif, avif, quicktime, mp4
    /// Apple Photos adjustment sidecar (`.AAE`, an XML or binary plist).
    case appleAdjustment

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heif: "image/heic"
        case .avif: "image/avif"
        case .quicktime: "video/quicktime"
        case .mp4: "video/mp4"
        case .appleAdjustment: "application/xml"
        }
    }

    /// The extension camlib gives files of this format it writes.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heif: "heic"
        case .avif: "avif"
        case .quicktime: "mov"
        case .mp4: "mp4"
        case .appleAdjustment: "aae"
        }
    }

    public var isStill: Bool { self == .jpeg || self == .png || self == .heif || self == .avif }
    public var isMovie: Bool { self == .quicktime || self == .mp4 }

    /// File name extensions camlib imports, lower-cased, by the format they claim.
    public static func claimed(byExtension ext: String) -> MediaFormat? {
        switch ext.lowercased() {
        case "jpg", "jpeg", "jpe": .jpeg
        case "png": .png
        case "heic", "heif", "hif": .heif
        case "avif": .avif
        case "mov", "qt": .quicktime
        case "mp4", "m4v": .mp4
        case "aae": .appleAdjustment
        default: nil
        }
    }

    /// The format of a file whose first bytes are `header` (64 or more bytes is plenty;
    /// fewer is fine for tiny files). Nil when the bytes match no format camlib imports.
    public static func sniff(_ header: [UInt8]) -> MediaFormat? {
        if header.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if let ftyp = FileTypeBox(fileStart: header) {
            let brands = Set(ftyp.allBrands)
            if ftyp.majorBrand == "avif" || ftyp.majorBrand == "avis" { return .avif }
            if !brands.isDisjoint(with: ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1", "mif2"]) {
                return brands.contains("avif") && !brands.contains("heic") ? .avif : .heif
            }
            if brands.contains("avif") { return .avif }
            if ftyp.majorBrand == "qt  " { return .quicktime }
            return .mp4
        }
        // QuickTime files from old cameras start with moov/mdat/wide/free without an ftyp.
        if header.count >= 8 {
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(type) { return .quicktime }
        }
        if isPlist(header) { return .appleAdjustment }
        return nil
    }

    static func isPlist(_ header: [UInt8]) -> Bool {
        if header.starts(with: Array("bplist00".utf8)) { return true }
        var h = header[...]
        if h.starts(with: [0xEF, 0xBB, 0xBF]) { h = h.dropFirst(3) }  // UTF-8 BOM
        let text = String(decoding: h.prefix(256), as: UTF8.self)
        return text.hasPrefix("<?xml") && text.contains("plist") || text.hasPrefix("<plist")
    }
}
