import Containers
import Imaging

/// Attaches an auxiliary image (depth, disparity, a matte) to a JPEG as an iPhone's
/// Portrait JPEG carries it: a gray baseline JPEG after the photo, listed in the photo's
/// MPF index, with Apple's `apdi` XMP saying what it is and its own MPF segment. The
/// photo's bytes are kept (only its MPF index is written again, to list the new image).
public enum JPEGAuxiliaryWriter {
    /// The new file's bytes. `samples` are 8-bit gray in the photo's displayed orientation
    /// and shape (as `camlib aux extract` gives them); they are stored in the photo's
    /// stored orientation, as the iPhone stores its maps (readers turn them with the
    /// photo's Exif orientation). `description` becomes the image's XMP.
    public static func attach(
        to fileBytes: [UInt8], samples: PixelBuffer<UInt8>, description: ApplePixelDataInfo, quality: Int
    ) throws -> [UInt8] {
        let segments = try JPEGSegments(parsing: fileBytes)
        guard let frame = segments.frame else { throw JPEGError(message: "the photo has no frame header", context: "attaching") }
        guard samples.channels == 1 else {
            throw JPEGError(message: "the image has \(samples.channels) channels; an auxiliary image has one (gray)", context: "attaching")
        }
        let exif = segments.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }
        let orientation = EXIFOrientation(exifValue: exif?.orientation ?? 1)
        let shown = orientation.displayedSize(width: frame.width, height: frame.height)
        let photoAspect = Double(shown.width) / Double(max(shown.height, 1))
        let auxAspect = Double(samples.width) / Double(max(samples.height, 1))
        guard abs(photoAspect / auxAspect - 1) < 0.02 else {
            throw JPEGError(
                message: "the image is \(samples.width)x\(samples.height) but the photo is displayed \(shown.width)x\(shown.height); give it in the photo's displayed orientation and shape",
                context: "attaching")
        }
        // Its own MPF segment states how many images the file holds, counting itself.
        let count = (segments.mpfSegment.flatMap { try? MPFIndex(segment: $0) }?.entries.count ?? 1) + 1
        let image = try auxiliaryJPEG(samples.applying(orientation.inverse), description: description, quality: quality, numberOfImages: count)
        do {
            return try MPFIndex.appending(image, to: fileBytes)
        } catch let e as FormatError {
            throw JPEGError(message: e.problem, context: "attaching")
        }
    }

    /// A gray baseline JPEG with the XMP and MPF segments an iPhone puts in each of its
    /// auxiliary images (and no JFIF segment, as theirs have none).
    static func auxiliaryJPEG(_ stored: PixelBuffer<UInt8>, description: ApplePixelDataInfo, quality: Int, numberOfImages: Int) throws -> [UInt8] {
        let encoded = try JPEGCodec.encode(stored, quality: quality)
        let parsed = try JPEGSegments(parsing: encoded)
        var body = 2
        if let app0 = parsed.segments.first, app0.marker == 0xE0 { body = app0.offset + 4 + app0.payload.count }
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(description.packet.utf8)
        let mpf = try MPFIndex.segmentPayload(numberOfImages: numberOfImages)
        var out: [UInt8] = [0xFF, 0xD8]
        for (marker, payload) in [(UInt8(0xE1), xmp), (0xE2, mpf)] {
            guard payload.count + 2 <= 0xFFFF else { throw JPEGError(message: "the XMP does not fit one segment", context: "attaching") }
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return out + encoded[body...]
    }
}
