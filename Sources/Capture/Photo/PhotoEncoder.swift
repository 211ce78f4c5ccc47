import Codecs
import Containers
import Foundation
import Imaging

/// Turns a captured (merged) frame into a photo file: HEIC through libheif with an
/// embedded thumbnail item, or JPEG through libturbojpeg with an IFD1 thumbnail; both
/// with Exif: Make/Model naming the device, DateTimeOriginal with sub-seconds and the UTC
/// offset, the orientation, the pixel dimensions.
public enum PhotoEncoder {
    public struct Metadata: Sendable {
        public var make = "camlib"
        public var model: String
        public var captureDate: Date
        public var timeZone: TimeZone = .current
        public var orientation: EXIFOrientation = .up
        /// Extra Exif entries (the Apple MakerNote of a Live Photo still).
        public var extraExif: [TIFFWriter.Entry] = []

        public init(model: String, captureDate: Date) {
            self.model = model
            self.captureDate = captureDate
        }
    }

    public static func encode(_ pixels: PixelBuffer<UInt8>, format: PhotoSettings.FileFormat, metadata: Metadata) throws -> [UInt8] {
        switch format {
        case .heic:
            var still = HEIFEncoder.Still(pixels: pixels)
            still.orientation = metadata.orientation
            // HEIF shows irot/imir; Exif Orientation says the same for readers that look.
            still.exifTIFF = exif(for: pixels, metadata: metadata, thumbnail: nil).bytes()
            still.quality = 60
            still.thumbnailSide = 320
            return try HEIFEncoder.encodeRGB(still)
        case .jpeg:
            let jpeg = try JPEGCodec.encode(pixels, quality: 92)
            // A 160-pixel thumbnail in IFD1, as cameras write.
            let thumbnail = try JPEGCodec.encode(PixelScaler.scaledToFit(pixels, maxSide: 160), quality: 80)
            let tiff = exif(for: pixels, metadata: metadata, thumbnail: thumbnail).bytes()
            return try JPEGSegments.replacingExif(in: jpeg, with: tiff)
        }
    }

    static func exif(for pixels: PixelBuffer<UInt8>, metadata m: Metadata, thumbnail: [UInt8]?) -> TIFFWriter {
        let stamp = ExifDate(m.captureDate, timeZone: m.timeZone)
        var tiff = TIFFWriter()
        tiff.ifd0 = [
            (0x010F, .ascii(m.make)), (0x0110, .ascii(m.model)), (0x0112, .short([UInt16(m.orientation.rawValue)])),
            (0x011A, .rational([(72, 1)])), (0x011B, .rational([(72, 1)])), (0x0128, .short([2])),
            (0x0131, .ascii("camlib")), (0x0132, .ascii(stamp.dateTime)),
        ]
        tiff.exif = [
            (0x9000, .undefined(Array("0232".utf8))),
            (0x9003, .ascii(stamp.dateTime)), (0x9004, .ascii(stamp.dateTime)),
            (0x9010, .ascii(stamp.offset)), (0x9011, .ascii(stamp.offset)), (0x9012, .ascii(stamp.offset)),
            (0x9290, .ascii(stamp.subSeconds)), (0x9291, .ascii(stamp.subSeconds)), (0x9292, .ascii(stamp.subSeconds)),
            (0xA001, .short([1])),
            (0xA002, .long([UInt32(pixels.width)])), (0xA003, .long([UInt32(pixels.height)])),
        ] + m.extraExif
        tiff.thumbnailJPEG = thumbnail
        return tiff
    }
}

/// A moment as Exif writes it: "2026:11:22 06:15:02", sub-seconds "042", offset "+01:00".
public struct ExifDate: Sendable, Equatable {
    public let dateTime: String
    public let subSeconds: String
    public let offset: String

    public init(_ date: Date, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { String(format: "%02d", v ?? 0) }
        dateTime = String(format: "%04d", c.year ?? 0) + ":" + two(c.month) + ":" + two(c.day) + " " + two(c.hour) + ":" + two(c.minute) + ":" + two(c.second)
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        subSeconds = String(format: "%03d", (millis + 1000) % 1000)
        let seconds = timeZone.secondsFromGMT(for: date)
        offset = (seconds < 0 ? "-" : "+") + two(abs(seconds) / 3600) + ":" + two(abs(seconds) % 3600 / 60)
    }
}
