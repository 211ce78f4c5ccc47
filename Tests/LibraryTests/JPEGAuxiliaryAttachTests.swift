import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// `camlib aux attach` to JPEGs: an MPF image with Apple's `apdi` XMP, as an iPhone's
/// Portrait JPEG carries its maps, the photo's bytes kept; checked with exiftool and
/// FFmpeg besides camlib's own reader.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct JPEGAuxiliaryAttachTests {
    /// A gray PNG whose pattern tells every orientation apart.
    static func pattern(width: Int, height: Int, in scratch: ScratchDirectory, name: String = "matte.png") throws -> (String, PixelBuffer<UInt8>) {
        var matte = PixelBuffer<UInt8>(width: width, height: height, channels: 1)
        for y in 0..<height { for x in 0..<width { matte[x: x, y: y, channel: 0] = UInt8(clamping: x * 200 / width + (y * 50 / height)) } }
        for y in 0..<(height / 8) { for x in 0..<(width / 8) { matte[x: x, y: y, channel: 0] = 255 } }
        let png = scratch.file(name)
        try Data(try PNGCodec.encode(.eight(matte))).write(to: URL(fileURLWithPath: png))
        return (png, matte)
    }

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    /// exiftool's tags of a file, one group-qualified name each.
    static func exiftool(_ path: String, _ arguments: [String] = []) throws -> [String: String] {
        let r = try run("exiftool", ["-j", "-G1", "-n"] + arguments + [path])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        return (list?.first ?? [:]).mapValues { "\($0)" }
    }

    /// The bytes of MPF image `n` (2, 3, …), as exiftool cuts it out.
    static func mpfImage(_ n: Int, of path: String, in scratch: ScratchDirectory) throws -> [UInt8] {
        let out = scratch.file("MPImage\(n)-\(UUID().uuidString).jpg")
        let r = try run("sh", ["-c", "exiftool -b -MPImage\(n) \"$1\" > \"$2\"", "sh", path, out])
        #expect(r.status == 0, "\(r.stderr)")
        return try bytes(out)
    }

    static func largestDifference(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>) -> Int {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return .max }
        return zip(a.components, b.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test func aMatteBecomesAnMPFImageWithApplesXMPAndThePhotoKeepsItsBytes() throws {
        let scratch = try ScratchDirectory()
        let source = Media.path("apple-misc/IMG_4120.JPG")  // 500x375, no MPF
        let (png, matte) = try Self.pattern(width: 400, height: 300, in: scratch)
        let result = try AuxiliaryAttacher.attach(toFile: source, type: .portraitEffectsMatte, from: png, options: .init())
        #expect(result.format == .jpeg && result.attached.type == .portraitEffectsMatte && result.attached.source == "mpf:2")
        #expect(result.maxError <= 2 && result.note != nil, "\(result.maxError)")
        let output = scratch.file("matte.jpg")
        try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: output), overwrite: false)

        // The photo's bytes, but for the new MPF segment, are the original's, and the
        // file ends with the new image.
        let before = try Self.bytes(source), after = try Self.bytes(output)
        let segments = try JPEGSegments(parsing: after)
        let mpf = try #require(segments.mpfSegment)
        var photo = after
        photo.removeSubrange(mpf.offset..<(mpf.offset + 4 + mpf.payload.count))
        let image = try Self.mpfImage(2, of: output, in: scratch)
        #expect(Array(photo.prefix(before.count)) == before && photo.count == before.count + image.count)
        #expect(Array(after.suffix(image.count)) == image)

        // exiftool reads the index and the image's apdi XMP as an iPhone's.
        let tags = try Self.exiftool(output)
        #expect(tags["MPF0:NumberOfImages"] == "2")
        #expect(tags["MPImage1:MPImageStart"] == "0" && tags["MPImage1:MPImageLength"] == "\(JPEGSegments.endOfImage(in: after)!)")
        #expect(tags["MPImage2:MPImageStart"] == "\(after.count - image.count)" && tags["MPImage2:MPImageLength"] == "\(image.count)")
        let imagePath = scratch.file("mpf2.jpg")
        try Data(image).write(to: URL(fileURLWithPath: imagePath))
        let inner = try Self.exiftool(imagePath)
        #expect(inner["XMP-apdi:AuxiliaryImageType"] == "depth" && inner["XMP-apdi:AuxiliaryImageSubType"] == "portraiteffectsmatte")
        #expect(inner["XMP-apdi:StoredFormat"] == "1278226488" && inner["File:ColorComponents"] == "1")
        #expect(inner["MPF0:NumberOfImages"] == "2")
        #expect(inner["File:ImageWidth"] == "400" && inner["File:ImageHeight"] == "300")

        // FFmpeg decodes the image to the samples given, within JPEG's error.
        let raw = scratch.file("mpf2.gray")
        let ff = try run("ffmpeg", ["-v", "error", "-y", "-i", imagePath, "-f", "rawvideo", "-pix_fmt", "gray", raw])
        #expect(ff.status == 0, "\(ff.stderr)")
        let theirs = PixelBuffer<UInt8>(width: 400, height: 300, channels: 1, components: try Self.bytes(raw))
        #expect(Self.largestDifference(theirs, matte) <= 2)
    }

    @Test func anIPhonePortraitJPEGKeepsItsOwnImagesAndGainsOne() throws {
        let scratch = try ScratchDirectory()
        let source = Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg")  // 2316x3088, disparity + portrait matte
        let (png, matte) = try Self.pattern(width: 480, height: 640, in: scratch)
        let result = try AuxiliaryAttacher.attach(toFile: source, type: .skinMatte, from: png, options: .init())
        let output = scratch.file("skin.jpg")
        try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: output), overwrite: false)
        for n in [2, 3] {
            #expect(try Self.mpfImage(n, of: output, in: scratch) == (try Self.mpfImage(n, of: source, in: scratch)), "MPF image \(n)")
        }
        let tags = try Self.exiftool(output)
        #expect(tags["MPF0:NumberOfImages"] == "4")
        let types = try LooseFileAuxiliaryImages.describe(path: output).aux.map(\.type)
        #expect(types == [.disparity, .portraitEffectsMatte, .skinMatte])
        guard case .eight(let back)? = result.attached.samples else {
            Issue.record("no 8-bit samples read back")
            return
        }
        #expect(Self.largestDifference(back, matte) <= 2)
    }

    @Test func aMapForARotatedPhotoIsStoredTheWayThePhotoIs() throws {
        // Displayed 3024x4032, stored 4032x3024 with Exif orientation 6.
        let scratch = try ScratchDirectory()
        let (png, matte) = try Self.pattern(width: 768, height: 1024, in: scratch)
        let result = try AuxiliaryAttacher.attach(
            toFile: Media.path("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg"), type: .depth, from: png, options: .init(),
            depthRange: 0.3...8)
        let output = scratch.file("turned.jpg")
        try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: output), overwrite: false)
        let imagePath = scratch.file("mpf2.jpg")
        try Data(try Self.mpfImage(2, of: output, in: scratch)).write(to: URL(fileURLWithPath: imagePath))
        let inner = try Self.exiftool(imagePath)
        #expect(inner["File:ImageWidth"] == "1024" && inner["File:ImageHeight"] == "768")
        #expect(inner["XMP-apdi:AuxiliaryImageType"] == "depth" && inner["XMP-apdi:FloatMinValue"].flatMap(Double.init) == 0.3
                && inner["XMP-apdi:FloatMaxValue"].flatMap(Double.init) == 8)
        guard case .eight(let back)? = result.attached.samples else {
            Issue.record("no 8-bit samples read back")
            return
        }
        #expect(back.width == 768 && Self.largestDifference(back, matte) <= 2)
        #expect(
            result.attached.encoding.floatMin == 0.3 && result.attached.encoding.floatMax == 8 && result.attached.encoding.units == "m",
            "\(result.attached.encoding)")
    }

    @Test func whatAJPEGCannotTakeIsRefusedWithTheReason() throws {
        let scratch = try ScratchDirectory()
        func refusal(_ file: String, _ type: AuxiliaryImageType, _ png: String) -> String {
            do {
                _ = try AuxiliaryAttacher.attach(toFile: Media.path(file), type: type, from: png, options: .init())
                return "attached"
            } catch {
                return "\(error)"
            }
        }
        let (portrait, _) = try Self.pattern(width: 480, height: 640, in: scratch)
        #expect(refusal("apple-portrait-jpeg/jpeg_depth_data.jpg", .disparity, portrait).hasSuffix("jpeg_depth_data.jpg: the photo already has a disparity image"))
        #expect(refusal("apple-portrait-jpeg/jpeg_depth_data.jpg", .hdrGainMap, portrait).contains("gain-map image cannot be attached to a JPEG"))
        let (landscape, _) = try Self.pattern(width: 1024, height: 768, in: scratch, name: "wide.png")
        #expect(refusal("android-depth-motion/motion_photo.jpeg", .depth, landscape).contains("bytes follow the photo's images (a Motion Photo's movie"))
        #expect(refusal("apple-portrait-jpeg/jpeg_depth_data.jpg", .skinMatte, landscape).contains("give it in the photo's displayed orientation"))
        let deep = scratch.file("deep.png")
        let samples = PixelBuffer<UInt16>(width: 480, height: 640, channels: 1, components: (0..<(480 * 640)).map { UInt16($0 % 4096) << 4 })
        try Data(try PNGCodec.encode(.sixteen(samples, significantBits: 12))).write(to: URL(fileURLWithPath: deep))
        #expect(refusal("apple-portrait-jpeg/jpeg_depth_data.jpg", .skinMatte, deep).contains("a JPEG holds 8-bit auxiliary images"))
        #expect(refusal("apple-live-photo/IMG_3582.mov", .skinMatte, portrait).contains("attached to HEIC and JPEG photos; this is a"))
    }

    @Test func aLibraryJPEGGetsAJPEGVersionThatEditsKeepAndRevertUndoes() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let source = Media.path("apple-misc/IMG_4120.JPG")
        _ = try Importer(library: library).run(paths: [source])
        let id = try library.findAsset(source)
        let (png, _) = try Self.pattern(width: 400, height: 300, in: scratch)
        let (path, result) = try library.attachAuxiliaryImage(to: id, type: .portraitEffectsMatte, from: png, options: .init())
        #expect(result.format == .jpeg && path.hasSuffix(".jpg"))
        var asset = try library.describe([id])[0]
        #expect(asset.resources.contains { $0.role == .renderedPhoto && $0.path == path && $0.mime == "image/jpeg" })
        #expect(asset.aux.map(\.type) == [.portraitEffectsMatte])
        let original = try #require(asset.resources.first { $0.role == .photo })
        #expect(try FileReading.sha256(of: original.path) == original.sha256)

        // An edit renders from the original and attaches the image again.
        let edit = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let edited = try #require(edit.renders.first)
        #expect(edited.hasSuffix(".jpg"))
        #expect(try LooseFileAuxiliaryImages.describe(path: edited).aux.map(\.type) == [.portraitEffectsMatte])
        asset = try library.describe([id])[0]
        #expect(asset.aux.map(\.type) == [.portraitEffectsMatte] && asset.aux.allSatisfy { $0.path.map(FileManager.default.fileExists) == true })

        // Errors name the asset and the file it was imported as.
        do {
            _ = try library.attachAuxiliaryImage(to: id, type: .portraitEffectsMatte, from: png, options: .init())
            Issue.record("a second portrait matte was attached")
        } catch {
            #expect("\(error)" == "asset \(id) (IMG_4120.JPG): the photo already has a portrait-matte image")
        }

        #expect(try library.revert(asset: id))
        asset = try library.describe([id])[0]
        #expect(asset.aux.isEmpty && !asset.resources.contains { $0.role == .renderedPhoto })
        try CatalogChecks.expectSummaryAgrees(library)
    }
}
