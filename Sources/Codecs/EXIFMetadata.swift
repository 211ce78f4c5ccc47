internal import CExif
import Containers

/// The EXIF facts camlib keeps, read through libexif from a TIFF-structured block (JPEG
/// APP1, HEIF `Exif` item, PNG `eXIf`), plus the Apple MakerNote read by camlib itself.
public struct EXIFMetadata: Sendable, Equatable {
    public var make: String?
    public var model: String?
    public var software: String?
    public var lensMake: String?
    public var lensModel: String?
    /// EXIF Orientation tag value (1–8), nil when absent; 0 is kept as written.
    public var orientation: Int?
    public var captureTime: CaptureTime?
    public var location: GeoLocation?
    /// ExifImageWidth/Height (PixelX/YDimension), as stored (not rotated).
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var appleMakerNote: AppleMakerNote?
    /// The IFD1 thumbnail (a small JPEG) when present.
    public var thumbnailJPEG: [UInt8]?

    public init() {}

    /// Reads `tiff` (starting at the TIFF byte-order mark "II"/"MM").
    ///
    /// libexif skips what it cannot read rather than failing, so a damaged block gives
    /// fewer facts, not an error; a block with no readable IFD0 gives an error.
    public init(tiff: some Collection<UInt8>) throws {
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        let buffer = header + Array(tiff)
        guard buffer.count >= header.count + 8, buffer.count <= Int(UInt32.max) else {
            throw FormatError("EXIF", "block of \(tiff.count) bytes is too short to hold a TIFF header")
        }
        guard let data = exif_data_new() else { throw FormatError("EXIF", "libexif could not allocate") }
        defer { exif_data_unref(data) }
        // Read what is there: no "fixing" (which would invent mandatory tags with
        // default values), no dropping of tags libexif does not know.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        buffer.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }

        let order = exif_data_get_byte_order(data)
        let ifds = data.pointee.ifd
        let reader = EntryReader(order: order)
        let ifd0 = ifds.0, ifdExif = ifds.2, ifdGPS = ifds.3
        guard let ifd0, ifd0.pointee.count > 0 || (ifdExif?.pointee.count ?? 0) > 0 else {
            throw FormatError("EXIF", "no readable IFD0 in the TIFF block")
        }

        make = reader.string(ifd0, 0x010F)
        model = reader.string(ifd0, 0x0110)
        software = reader.string(ifd0, 0x0131)
        orientation = reader.integer(ifd0, 0x0112).map(Int.init)
        lensMake = reader.string(ifdExif, 0xA433)
        lensModel = reader.string(ifdExif, 0xA434)
        pixelWidth = reader.integer(ifdExif, 0xA002).map(Int.init)
        pixelHeight = reader.integer(ifdExif, 0xA003).map(Int.init)

        // DateTimeOriginal, else DateTimeDigitized, else DateTime; each with its own
        // sub-second and offset tags.
        let candidates: [(ExifContentRef, UInt16, UInt16, UInt16)] = [
            (ifdExif, 0x9003, 0x9291, 0x9011), (ifdExif, 0x9004, 0x9292, 0x9012), (ifd0, 0x0132, 0x9290, 0x9010),
        ]
        for (ifd, dateTag, subTag, offsetTag) in candidates {
            guard let text = reader.string(ifd, dateTag) else { continue }
            if let t = CaptureTime(exif: text, subseconds: reader.string(ifdExif, subTag), offset: reader.string(ifdExif, offsetTag)) {
                captureTime = t
                break
            }
        }

        if let lat = reader.rationals(ifdGPS, 0x0002), let lon = reader.rationals(ifdGPS, 0x0004),
            lat.count >= 3, lon.count >= 3
        {
            var latitude = lat[0] + lat[1] / 60 + lat[2] / 3600
            var longitude = lon[0] + lon[1] / 60 + lon[2] / 3600
            if reader.string(ifdGPS, 0x0001)?.uppercased() == "S" { latitude = -latitude }
            if reader.string(ifdGPS, 0x0003)?.uppercased() == "W" { longitude = -longitude }
            var altitude = reader.rationals(ifdGPS, 0x0006)?.first
            if altitude != nil, reader.bytes(ifdGPS, 0x0005)?.first == 1 { altitude = -altitude! }
            if latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
                !(latitude == 0 && longitude == 0)
            {
                location = GeoLocation(latitude: latitude, longitude: longitude, altitude: altitude)
            }
        }

        if let note = reader.bytes(ifdExif, 0x927C), AppleMakerNote.matches(note) {
            appleMakerNote = try? AppleMakerNote(bytes: note)
        }
        if let thumb = data.pointee.data, data.pointee.size > 0 {
            thumbnailJPEG = Array(UnsafeBufferPointer(start: thumb, count: Int(data.pointee.size)))
        }
    }
}

private typealias ExifContentRef = UnsafeMutablePointer<ExifContent>?

/// Typed reads of libexif entries; values are copied out before the ExifData is freed.
private struct EntryReader {
    let order: ExifByteOrder

    func entry(_ ifd: ExifContentRef, _ tag: UInt16) -> UnsafeMutablePointer<ExifEntry>? {
        guard let ifd, let e = exif_content_get_entry(ifd, ExifTag(rawValue: UInt32(tag))), e.pointee.data != nil else {
            return nil
        }
        return e
    }

    func bytes(_ ifd: ExifContentRef, _ tag: UInt16) -> [UInt8]? {
        guard let e = entry(ifd, tag) else { return nil }
        return Array(UnsafeBufferPointer(start: e.pointee.data, count: Int(e.pointee.size)))
    }

    func string(_ ifd: ExifContentRef, _ tag: UInt16) -> String? {
        guard let raw = bytes(ifd, tag) else { return nil }
        let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
        return trimmed.isEmpty ? nil : String(trimmed.reversed())
    }

    func integer(_ ifd: ExifContentRef, _ tag: UInt16) -> Int64? {
        guard let e = entry(ifd, tag), let p = e.pointee.data else { return nil }
        let size = Int(e.pointee.size)
        switch e.pointee.format {
        case EXIF_FORMAT_SHORT where size >= 2: return Int64(exif_get_short(p, order))
        case EXIF_FORMAT_SSHORT where size >= 2: return Int64(Int16(bitPattern: exif_get_short(p, order)))
        case EXIF_FORMAT_LONG where size >= 4: return Int64(exif_get_long(p, order))
        case EXIF_FORMAT_SLONG where size >= 4: return Int64(exif_get_slong(p, order))
        case EXIF_FORMAT_BYTE where size >= 1: return Int64(p[0])
        default: return nil
        }
    }

    func rationals(_ ifd: ExifContentRef, _ tag: UInt16) -> [Double]? {
        guard let e = entry(ifd, tag), let p = e.pointee.data else { return nil }
        let n = min(Int(e.pointee.components), Int(e.pointee.size) / 8)
        var out: [Double] = []
        for i in 0..<n {
            switch e.pointee.format {
            case EXIF_FORMAT_RATIONAL:
                let r = exif_get_rational(p + i * 8, order)
                guard r.denominator != 0 else { return nil }
                out.append(Double(r.numerator) / Double(r.denominator))
            case EXIF_FORMAT_SRATIONAL:
                let r = exif_get_srational(p + i * 8, order)
                guard r.denominator != 0 else { return nil }
                out.append(Double(r.numerator) / Double(r.denominator))
            default: return nil
            }
        }
        return out
    }
}
