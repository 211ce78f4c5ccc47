import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// `camlib edit` and `camlib revert` on stills: renders in the original's format, with its
/// orientation, metadata and auxiliary images; adjustments kept as history (on either
/// backend, where the catalog matters).
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct EditTests {
    /// A library holding the given corpus files, its catalog on `backend`.
    static func library(_ files: [String], in scratch: ScratchDirectory, on backend: CatalogBackend = .sqlite) throws -> PhotoLibrary {
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"), catalogURL: try backend.newCatalogURL("edit"))
        let report = try Importer(library: library).run(paths: files.map(Media.path))
        #expect(report.errors.isEmpty)
        return library
    }

    /// A 64x48 PNG whose alpha rises left to right over a picture of another pattern.
    static func transparentPNG(in scratch: ScratchDirectory) throws -> (path: String, pixels: PixelBuffer<UInt8>) {
        var rgba = PixelBuffer<UInt8>(width: 64, height: 48, channels: 4)
        for i in 0..<(64 * 48) {
            rgba.components[i * 4] = UInt8(i % 256)
            rgba.components[i * 4 + 1] = 200
            rgba.components[i * 4 + 2] = UInt8((i / 64) * 5)
            rgba.components[i * 4 + 3] = UInt8((i % 64) * 4)
        }
        let file = scratch.file("clear.png")
        try Data(try PNGCodec.encode(.eight(rgba), photographic: true)).write(to: URL(fileURLWithPath: file))
        return (file, rgba)
    }

    /// Share of pixels whose channels are within `tolerance` of each other.
    static func grayShare(_ p: PixelBuffer<UInt8>, tolerance: Int = 8) -> Double {
        var gray = 0
        for i in stride(from: 0, to: p.components.count, by: 3) {
            let r = Int(p.components[i]), g = Int(p.components[i + 1]), b = Int(p.components[i + 2])
            if max(r, g, b) - min(r, g, b) <= tolerance { gray += 1 }
        }
        return Double(gray) / Double(p.width * p.height)
    }

    /// A comic movie is drawn from each frame averaged down to the working size, never
    /// converted at full size, and a comic alone straight into the encoder's planes; a
    /// recipe that reads the frame's pixels gets the whole frame.
    @Test(arguments: [
        ("comic", "planes"), ("comic,vignette", "average"), ("mono,comic", "whole"), ("posterize", "whole"), ("sepia", "whole"), ("", "whole"),
    ])
    func aMovieIsDrawnFromItsFramesAverageWhenThatIsAllTheRecipeNeeds(recipe text: String, drawing: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: ",").map { try FilterStep(name: String($0)) })
        switch MovieRenderer.drawing(recipe) {
        case .fromAverage(let size, _), .fromAverageToYCbCr(let size, _):
            #expect(drawing != "whole")
            // A Live Photo's 1920x1440 frames: the comic's working size, 720 on the short side.
            #expect(size(1920, 1440) == (960, 720))
            if case .fromAverageToYCbCr = MovieRenderer.drawing(recipe) { #expect(drawing == "planes") } else { #expect(drawing == "average") }
        case .whole: #expect(drawing == "whole")
        }
    }

    @Test func editingAHEICKeepsItsOrientationMetadataAndAuxImages() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-portrait-heic/heic_depth_data.heic", "orientation/IMG_0102.HEIC"]
        let library = try Self.library(files, in: scratch)
        for file in files {
            let id = try library.findAsset(Media.path(file))
            let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
            #expect(result.warnings.isEmpty)
            let render = try #require(result.renders.first)
            let original = try HEIFFile(path: Media.path(file)).primaryImage()
            let rendered = try HEIFFile(path: render).primaryImage()
            #expect(rendered.width == original.width && rendered.height == original.height, "\(file)")
            #expect(rendered.orientation == original.orientation, "\(file)")
            #expect(rendered.exifTIFF() != nil && rendered.iccProfile == original.iccProfile)
            #expect(Self.grayShare(try rendered.decodeRGB()) > 0.97, "\(file): not gray")
            // Auxiliary images are carried over bit for bit: same types, sizes and pixels.
            let before = try LooseFileAuxiliaryImages.describe(path: Media.path(file), decode: true).aux
            let after = try LooseFileAuxiliaryImages.describe(path: render, decode: true).aux
            #expect(after.map(\.type) == before.map(\.type), "\(file)")
            #expect(after.map(\.width) == before.map(\.width) && after.map(\.height) == before.map(\.height))
            #expect(after.map(\.encoding) == before.map(\.encoding), "\(file): apdi metadata lost")
            // exiftool reads the same camera and capture time from the render's Exif.
            let tags = ["-s3", "-Make", "-Model", "-DateTimeOriginal"]
            #expect(try run("exiftool", tags + [render]).stdout == (try run("exiftool", tags + [Media.path(file)]).stdout))
            #expect(try run("heif-info", [render]).status == 0)
        }
    }

    @Test func editingAJPEGKeepsItsEXIFOrientation() throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(["orientation/Landscape_6.jpg"], in: scratch)
        let id = try library.findAsset(Media.path("orientation/Landscape_6.jpg"))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "sepia")], extending: false)
        let render = try #require(result.renders.first)
        let exif = try run("exiftool", ["-s3", "-n", "-Orientation", "-ImageWidth", "-ImageHeight", render])
        let original = try run("exiftool", ["-s3", "-n", "-Orientation", "-ImageWidth", "-ImageHeight", Media.path("orientation/Landscape_6.jpg")])
        #expect(exif.stdout == original.stdout && exif.stdout.hasPrefix("6\n"))
        let pixels = try JPEGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: render)))).pixels
        // Sepia: red ≥ green ≥ blue almost everywhere (JPEG coding blurs a little).
        var warm = 0
        for i in stride(from: 0, to: pixels.components.count, by: 3) {
            let (r, g, b) = (Int(pixels.components[i]), Int(pixels.components[i + 1]), Int(pixels.components[i + 2]))
            if r + 4 >= g && g + 4 >= b { warm += 1 }
        }
        #expect(Double(warm) / Double(pixels.width * pixels.height) > 0.97)
    }

    @Test func aJPEGRenderCarriesAThumbnailOfItselfAndItsOriginalsJFIF() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-misc/IMG_4120.JPG", "apple-portrait-jpeg/jpeg_depth_data.jpg", "orientation/Landscape_6.jpg"]
        let library = try Self.library(files, in: scratch)
        for file in files {
            let id = try library.findAsset(Media.path(file))
            let render = try #require(try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false).renders.first)
            // The JFIF header stays when the original had one (and only then).
            let jfif = ["-s3", "-JFIFVersion"]
            #expect(try run("exiftool", jfif + [render]).stdout == (try run("exiftool", jfif + [Media.path(file)]).stdout), "\(file)")
            // The Exif thumbnail shows the edit (gray), at the original thumbnail's size.
            let thumbnails = try [Media.path(file), render].map { path -> [UInt8] in
                let tiff = try JPEGSegments(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).exifTIFF.map(Array.init) ?? []
                return ExifThumbnail.thumbnail(in: tiff) ?? []
            }
            if thumbnails[0].isEmpty {
                #expect(thumbnails[1].isEmpty, "\(file) has a thumbnail it did not have")
                continue
            }
            let before = try JPEGCodec.decode(thumbnails[0]).pixels, after = try JPEGCodec.decode(thumbnails[1]).pixels
            #expect(after.width == before.width && after.height == before.height, "\(file)")
            #expect(Self.grayShare(before) < 0.9 && Self.grayShare(after) > 0.97, "\(file): the thumbnail is not the render's")
            #expect(try run("exiftool", ["-validate", "-warning", "-s3", render]).stdout.contains("Error") == false)
        }
    }

    @Test func aPortraitJPEGsRenderKeepsItsMPFImages() throws {
        let scratch = try ScratchDirectory()
        let file = "apple-portrait-jpeg/jpeg_depth_data.jpg"
        let library = try Self.library([file], in: scratch)
        let result = try library.edit(asset: try library.findAsset(Media.path(file)), steps: [try FilterStep(parsing: "mono")], extending: false)
        #expect(result.warnings.isEmpty)
        let render = try #require(result.renders.first)
        let before = try LooseFileAuxiliaryImages.describe(path: Media.path(file), decode: true).aux
        let after = try LooseFileAuxiliaryImages.describe(path: render, decode: true).aux
        #expect(after.map(\.type) == [.disparity, .portraitEffectsMatte] && after.map(\.type) == before.map(\.type))
        #expect(after.allSatisfy { $0.problem == nil })
        // Extracted pixels are the original's: the MPF images were copied, not re-encoded.
        let a = try LooseFileAuxiliaryImages.extract(path: Media.path(file), types: nil, to: try scratch.subdirectory("a"), overwrite: false)
        let b = try LooseFileAuxiliaryImages.extract(path: render, types: nil, to: try scratch.subdirectory("b"), overwrite: false)
        // (Compared as samples: each PNG's text names the file it came from.)
        for (x, y) in zip(a, b) {
            let pixels = { (path: String) in try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).samples }
            #expect(try pixels(x.path!) == pixels(y.path!))
        }
        // exiftool reads the rewritten index, and finds each image where it says.
        let mpf = try run("exiftool", ["-a", "-s3", "-MPF:NumberOfImages", "-MPF:MPImageLength", render])
        #expect(mpf.stdout.split(separator: "\n").map(String.init) == ["3", "\(try FileManager.default.attributesOfItem(atPath: render)[.size] as! Int - 27698 - 88622)", "27698", "88622"])
    }

    @Test(arguments: ["android-depth-motion/motion_photo.jpeg", "android-depth-motion/motion_photo.heic"])
    func editingAMotionPhotoRendersTheMovieInsideTheStill(file: String) throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "posterize:levels=3")], extending: false)
        let render = try #require(result.renders.first)
        // The movie inside the render is found where its XMP (or mpvd box) says, whole.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: render)))
        let found = try #require(try LooseFileAuxiliaryImages.describe(path: render).movie)
        #expect(found.note == nil, "\(found.note ?? "")")
        #expect(found.range.upperBound == bytes.count)
        let movie = scratch.file("embedded.mp4")
        try Data(bytes[found.range]).write(to: URL(fileURLWithPath: movie))
        let original = try #require(try library.describe([id])[0].resources.first { $0.role == .pairedVideo }).path
        func frames(_ path: String) throws -> String {
            try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", path]).stdout
        }
        #expect(try frames(movie) == (try frames(original)))
        // Every frame as long as before, the last one too, and the pixel aspect ratio kept
        // (packets in presentation order: the original may code B-frames, the render not).
        func timing(_ path: String) throws -> [String] {
            let packets = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,duration", "-of", "csv=p=0", path]).stdout
            let stream = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration,sample_aspect_ratio", "-of", "csv=p=0", path]).stdout
            let lines: [(pts: Int, line: String)] = packets.split(separator: "\n").map { line in
                (Int(line.split(separator: ",").first ?? "") ?? 0, String(line))
            }
            return [stream] + lines.sorted { $0.pts < $1.pts }.map(\.line)
        }
        #expect(try timing(movie) == (try timing(original)))
        let hashes = ["-v", "error", "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"]
        #expect(try run("ffmpeg", ["-i", movie] + hashes).stdout != (try run("ffmpeg", ["-i", original] + hashes).stdout))
    }

    @Test(arguments: CatalogBackend.allCases) func historyRevertAndResuming(on backend: CatalogBackend) throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(["orientation/Landscape_1.jpg"], in: scratch, on: backend)
        let id = try library.findAsset(Media.path("orientation/Landscape_1.jpg"))
        let original = try library.describe([id])[0].resources.first { $0.role == .photo }!

        // Nothing to extend yet.
        #expect(throws: (any Error).self) { try library.edit(asset: id, steps: [try FilterStep(parsing: "vignette")], extending: true) }
        let first = try library.edit(asset: id, steps: [try FilterStep(parsing: "noir")], extending: false)
        let second = try library.edit(asset: id, steps: [try FilterStep(parsing: "vignette:strength=0.4")], extending: true)
        #expect(second.recipe.steps.map(\.name) == ["noir", "vignette"])
        var asset = try library.describe([id])[0]
        #expect(asset.adjustments.count == 2)
        #expect(asset.adjustments.map(\.current) == [false, true])
        #expect(asset.adjustments.allSatisfy { $0.formatIdentifier == "org.camlib.filters" && $0.formatVersion == "1" })
        let recipe = try JSONDecoder().decode(FilterRecipe.self, from: Data(asset.adjustments[1].data.utf8))
        #expect(recipe == second.recipe.filters)
        // Only the current render is a resource.
        #expect(asset.resources.filter { $0.role == .renderedPhoto }.map(\.path) == second.renders)
        #expect(first.renders != second.renders)

        #expect(try library.revert(asset: id))
        asset = try library.describe([id])[0]
        #expect(asset.adjustments.count == 2 && asset.adjustments.allSatisfy { !$0.current })
        #expect(!asset.resources.contains { $0.role == .renderedPhoto })
        #expect(try FileReading.sha256(of: original.path) == original.sha256)
        #expect(try library.revert(asset: id) == false)
        try CatalogChecks.expectSummaryAgrees(library)
    }

    /// The issue's proof on IMG_3582: the edited pair checked with exiftool, ffprobe and
    /// heif-info; revert, then export, gives the byte-identical originals.
    @Test func aPNGStaysAPNGWithItsChunksAndTransparency() throws {
        let scratch = try ScratchDirectory()
        // A real PNG: its text, density and time chunks come along.
        let library = try Self.library(["orientation/kimono.png"], in: scratch)
        let id = try library.findAsset(Media.path("orientation/kimono.png"))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let render = try #require(result.renders.first)
        #expect(render.hasSuffix(".png"))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/kimono.png"))))
        let rendered = try [UInt8](Data(contentsOf: URL(fileURLWithPath: render)))
        let before = try PNGChunks(parsing: original), after = try PNGChunks(parsing: rendered)
        #expect((after.width, after.height) == (before.width, before.height))
        // Its raw Exif profile (a zTXt holding a thumbnail) comes as an eXIf chunk with a
        // thumbnail of the render.
        let carried = before.chunks.map(\.type).filter(StillRenderer.carriedPNGChunks.contains).map { $0 == "zTXt" ? "eXIf" : $0 }
        #expect(!carried.isEmpty && after.chunks.map(\.type).filter(StillRenderer.carriedPNGChunks.contains) == carried)
        #expect(Self.grayShare(try PNGCodec.decodeRGB(rendered)) > 0.99)

        // A PNG with transparency keeps its alpha exactly.
        let file = try Self.transparentPNG(in: scratch).path
        _ = try Importer(library: library).run(paths: [file])
        let clear = try library.findAsset(file)
        let edited = try #require(try library.edit(asset: clear, steps: [try FilterStep(parsing: "sepia")], extending: false).renders.first)
        let alphaBefore = try #require(try PNGCodec.decodeRGBKeepingAlpha([UInt8](Data(contentsOf: URL(fileURLWithPath: file)))).alpha)
        let back = try PNGCodec.decodeRGBKeepingAlpha([UInt8](Data(contentsOf: URL(fileURLWithPath: edited))))
        #expect(back.alpha == alphaBefore)
    }

    @Test(arguments: ["orientation/kimono.rotate90.avif", "orientation/kimono.mirror-vertical.rotate270.crop.avif"])
    func anAVIFStaysAnAVIFTurnedLikeItsOriginal(file: String) throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let render = try #require(try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false).renders.first)
        #expect(render.hasSuffix(".avif"))
        #expect(MediaFormat.sniff(try FileReading.prefix(of: render, count: 64)) == .avif)
        // As displayed (irot/imir/clap applied), the render is the original in gray:
        // turned or mirrored the wrong way, it would not match.
        let original = try HEIFFile(path: Media.path(file)).primaryImage().decodeRGB()
        let edited = try HEIFFile(path: render).primaryImage().decodeRGB()
        #expect((edited.width, edited.height) == (original.width, original.height))
        var difference = 0
        for i in 0..<(original.width * original.height) {
            let o = original.components, e = edited.components
            let luma = (54 * Int(o[i * 3]) + 183 * Int(o[i * 3 + 1]) + 19 * Int(o[i * 3 + 2]) + 128) >> 8
            difference += abs(luma - Int(e[i * 3 + 1]))
        }
        #expect(Double(difference) / Double(original.width * original.height) < 8, "mean luma difference")
    }

    @Test func aComicRenderWeighsNoMoreThanWhatItReplaces() throws {
        // Halftone dots and ink lines are detail to an encoder: at a fixed quality a comic
        // render took 3 to 10 times its original's bytes. Each render here is capped by
        // its original: the picture's coded bytes, the movie's bit rate.
        let scratch = try ScratchDirectory()
        let files = [
            "apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov", "apple-portrait-heic/pug.heic", "apple-misc/IMG_4120.JPG",
            "android-depth-motion/motion_photo.jpeg",
        ]
        let library = try Self.library(files, in: scratch)
        for file in files where !file.hasSuffix(".mov") {
            let id = try library.findAsset(Media.path(file))
            let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "comic")], extending: false)
            let originals = try library.describe([id])[0].resources.filter { $0.role == .photo || $0.role == .pairedVideo }
            for render in result.renders {
                let isMovie = render.hasSuffix(".mov")
                let original = try #require(originals.first { ($0.role == .pairedVideo) == isMovie }?.path)
                func size(_ path: String) throws -> Double { Double(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) }
                let ratio = try size(render) / size(original)
                #expect(ratio <= 1.3, "\(file): \(render) is \(ratio) times \(original)")
            }
        }
    }

    /// Python with Pillow and pillow-heif, from the .venv setup.sh makes.
    static let python = Media.packageRoot.appendingPathComponent(".venv/bin/python").path

    @Test func rendersOpenInIndependentReadersWithWhatStillApplies() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): run ./setup.sh")
        let scratch = try ScratchDirectory()
        let heic = "apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC", avif = "orientation/kimono.rotate90.avif"
        let library = try Self.library([heic, avif], in: scratch)
        var renders: [String: String] = [:]
        for file in [heic, avif] {
            let id = try library.findAsset(Media.path(file))
            renders[file] = try #require(try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false).renders.first)
        }
        // MIAF: transforms and the colour description are essential, or readers refuse.
        for (file, render) in renders {
            let meta = try HEIFMetaBox(file: try [UInt8](Data(contentsOf: URL(fileURLWithPath: render))))
            let properties = meta.properties(of: meta.primaryItemID)
            let transforms = properties.filter { ["irot", "imir", "colr"].contains($0.type) }
            #expect(!transforms.isEmpty && transforms.allSatisfy(\.association.essential), "\(file): \(properties.map { ($0.type, $0.association.essential) })")
        }
        // Pillow (libavif) and pillow-heif (libheif) open them, the original's way up.
        let script = """
            import sys, pillow_heif
            from PIL import Image
            pillow_heif.register_heif_opener()
            for path in sys.argv[1:]:
                image = Image.open(path)
                image.load()
                print(image.size[0], image.size[1])
            """
        let opened = try run(Self.python, ["-c", script, renders[heic]!, Media.path(heic), renders[avif]!, Media.path(avif)])
        #expect(opened.status == 0, "\(opened.stderr)")
        let lines = opened.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4 && lines[0] == lines[1] && lines[2] == lines[3], "\(lines)")
        // The colour profile stays (libheif gives none for this grid: it is read from colr).
        let original = try HEIFMetaBox(file: try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(heic)))))
        let rendered = try HEIFMetaBox(file: try [UInt8](Data(contentsOf: URL(fileURLWithPath: renders[heic]!))))
        #expect(rendered.iccProfile(of: rendered.primaryItemID) == original.iccProfile(of: original.primaryItemID))
        // The ISO 21496-1 gain map still applies (nothing moved) and is kept, offered as
        // the alternative to the render; Apple's Photographic Styles item describes how the
        // camera rendered the original and is not carried over.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: renders[heic]!)))
        let meta = try HEIFMetaBox(file: bytes)
        let tmap = try #require(meta.itemInfos.first { $0.type == "tmap" }?.id)
        #expect(meta.references.contains { $0.type == "dimg" && $0.from == tmap && $0.to.first == meta.primaryItemID && $0.to.count == 2 })
        #expect(HEIFMetaBox.alternativeGroups(in: bytes) == [[tmap, meta.primaryItemID]])
        #expect(!String(decoding: bytes, as: UTF8.self).contains("photo:metadata:styles"))
        #expect(try run("heif-info", [renders[heic]!]).status == 0)
    }

    @Test func aVideoIsEditedFrameByFrameKeepingItsSoundTimingAndTurn() throws {
        // A Live Photo's movie imported without its still is a plain video.
        let file = "apple-live-photo/IMG_4394.mov"
        let scratch = try ScratchDirectory()
        let library = try Self.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        #expect(try library.describe([id])[0].kind == .video)
        final class Heard: @unchecked Sendable { var frames: [Int] = [] }
        let heard = Heard()
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "comic")], extending: false) { step in
            if case .movieFrames(let done, _) = step { heard.frames.append(done) }
        }
        let render = try #require(result.renders.first)
        #expect(result.renders.count == 1 && render.hasSuffix(".mov"))
        #expect(heard.frames == Array(1...heard.frames.count) && heard.frames.count > 10)
        let original = Media.path(file)
        func streams(_ path: String) throws -> String {
            try run("ffprobe", [
                "-v", "error", "-count_frames", "-show_entries", "stream=codec_type,width,height,nb_read_frames,duration:stream_side_data=rotation",
                "-of", "csv=p=0", path,
            ]).stdout
        }
        #expect(try streams(render) == (try streams(original)))
        let audio = ["-v", "error", "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"]
        #expect(try run("ffmpeg", ["-i", render] + audio).stdout == (try run("ffmpeg", ["-i", original] + audio).stdout))
        let keys = ["-s3", "-Keys:all"]
        #expect(try run("exiftool", keys + [render]).stdout == (try run("exiftool", keys + [original]).stdout))
        // Not heavier than the original.
        let size = { (path: String) in Double(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) }
        #expect(try size(render) <= 1.3 * size(original))
        // The render is the current version; a revert brings the original back.
        #expect(try library.describe([id])[0].resources.contains { $0.role == .renderedVideo && $0.path == render })
        #expect(try library.revert(asset: id))
        let out = try scratch.subdirectory("out")
        let files = try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: true)
        #expect(try files.map { try FileReading.sha256(of: $0) } == [try FileReading.sha256(of: original)])
    }

    @Test(arguments: CatalogBackend.allCases) func editingALivePhotoRendersTheStillAndEveryFrameOfItsMovie(on backend: CatalogBackend) throws {
        let scratch = try ScratchDirectory()
        let library = try Self.library(["apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov"], in: scratch, on: backend)
        let id = try library.findAsset(Media.path("apple-live-photo/IMG_3582.HEIC"))
        // Progress as it goes: the still, then each of the 55 frames of 55.
        final class Heard: @unchecked Sendable { var steps: [String] = [] }
        let heard = Heard()
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "posterize:levels=4")], extending: false) { step in
            switch step {
            case .still: heard.steps.append("still")
            case .movieFrames(let done, let expected): heard.steps.append("\(done)/\(expected)")
            }
        }
        #expect(heard.steps == ["still"] + (1...55).map { "\($0)/55" })
        let still = try #require(result.renders.first { $0.hasSuffix(".heic") })
        let movie = try #require(result.renders.first { $0.hasSuffix(".mov") })
        // The render pair has a content identifier of its own, as Apple gives one: the same
        // in both halves, not the original's (which the originals keep); and the movie keeps
        // its still-image-time track.
        let stillID = try run("exiftool", ["-s3", "-MediaGroupUUID", still]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let movieTags = try run("exiftool", ["-s3", "-ee", "-ContentIdentifier", "-StillImageTime", movie]).stdout.split(separator: "\n").map(String.init)
        let original = "602FEBB7-6B59-4799-96E6-9C8484D873C7"
        #expect(UUID(uuidString: stillID) != nil && stillID != original, "\(stillID)")
        #expect(movieTags.first == stillID && movieTags.count == 2)
        #expect(try run("exiftool", ["-s3", "-MediaGroupUUID", Media.path("apple-live-photo/IMG_3582.HEIC")]).stdout == original + "\n")
        // Rendering the same recipe again gives the same bytes (and so the same files).
        let again = try library.edit(asset: id, steps: [try FilterStep(parsing: "posterize:levels=4")], extending: false)
        #expect(again.renders == result.renders)
        // Same frames, size and timing; the audio untouched.
        func streams(_ path: String) throws -> String {
            try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,width,height,nb_read_frames,duration", "-of", "csv=p=0", path]).stdout
        }
        #expect(try streams(movie) == (try streams(Media.path("apple-live-photo/IMG_3582.mov"))))
        let audio = ["-v", "error", "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"]
        #expect(try run("ffmpeg", ["-i", movie] + audio).stdout == (try run("ffmpeg", ["-i", Media.path("apple-live-photo/IMG_3582.mov")] + audio).stdout))
        // Every frame went through the filter: each one differs from the original's.
        func frameHashes(_ path: String) throws -> [String] {
            try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
        }
        let before = try frameHashes(Media.path("apple-live-photo/IMG_3582.mov")), after = try frameHashes(movie)
        #expect(before.count == 55 && after.count == 55)
        #expect(zip(before, after).allSatisfy { $0 != $1 })
        // The still keeps its depth.
        let info = try run("heif-info", [still]).stdout
        #expect(info.contains("depth channel: yes"))

        try library.revert(asset: id)
        let out = try scratch.subdirectory("out")
        let files = try Exporter.export(try library.describe([id])[0], from: library, to: out, originalOnly: true)
        #expect(try files.map { try FileReading.sha256(of: $0) }
            == [try FileReading.sha256(of: Media.path("apple-live-photo/IMG_3582.HEIC")), try FileReading.sha256(of: Media.path("apple-live-photo/IMG_3582.mov"))])
    }
}

/// Apple Photos edits (.AAE): decoded, recorded as foreign adjustments with their renders.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AppleEditTests {
    @Test func aaeDataIsDecodedToJSON() throws {
        let aae = try AppleAdjustment(plist: [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("apple-misc/IMG_4120.AAE")))))
        #expect(aae.formatIdentifier == "com.apple.photo" && aae.formatVersion == "1.4")
        let json = try #require(aae.decodedJSON)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let adjustments = try #require(object["adjustments"] as? [[String: Any]])
        #expect(adjustments.contains { ($0["settings"] as? [String: Any])?["effectName"] as? String == "3DNoir" })
        // Damaged DEFLATE data is an error, not a crash or garbage.
        #expect(throws: AppleAdjustmentError.self) { try RawDeflate.inflate(Array(aae.data.prefix(aae.data.count / 2))) }
        #expect(throws: AppleAdjustmentError.self) { try AppleAdjustment(plist: Array("not a plist".utf8)) }
    }

    @Test(arguments: CatalogBackend.allCases) func importRecordsApplesEditAsCurrentWithItsRenderAndRevertWorks(on backend: CatalogBackend) throws {
        let corpus = try CorpusLibrary.shared(on: backend)
        let misc = try corpus.asset("apple-misc/IMG_4120.JPG")
        #expect(misc.adjustments.count == 1)
        #expect(misc.adjustments[0].formatIdentifier == "com.apple.photo" && misc.adjustments[0].current)
        #expect(misc.adjustments[0].data.contains("3DNoir"))
        #expect(misc.resources.contains { $0.role == .renderedPhoto && $0.originalName == "IMG_E4120.JPG" })
        // IMG_3582: Photos' edit is current, the camera's IMG_O3582.aae is history.
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        #expect(live.adjustments.count == 2)
        #expect(live.adjustments.filter(\.current).count == 1)
        // Resuming Apple's edit as camlib's steps, or refusing to: AppleRecipeTests.
        // Revert on a scratch library, so the shared one keeps Apple's edit current.
        let scratch = try ScratchDirectory()
        let library = try EditTests.library(["apple-misc"], in: scratch)
        let id = try library.findAsset(Media.path("apple-misc/IMG_4120.JPG"))
        #expect(try library.revert(asset: id))
        let reverted = try library.describe([id])[0]
        #expect(!reverted.resources.contains { $0.role == .renderedPhoto })
        #expect(reverted.adjustments.count == 1 && !reverted.adjustments[0].current)
    }
}
