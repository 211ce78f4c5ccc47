@testable import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// Crops, turns and straightens rendered by `camlib edit`: the still, its depth and
/// mattes, and a Live Photo's movie all take the same shape, and still line up.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct GeometryEditTests {
    static func recipe(_ text: String) throws -> [FilterStep] { try text.split(separator: " ").map { try FilterStep(parsing: String($0)) } }

    /// Each auxiliary image of `original` reshaped by the recipe as the test sees it, and
    /// the render's, by type: the same size, and the same samples within `tolerance` (mean).
    static func expectAuxiliaryImagesFollow(_ original: String, _ render: String, _ recipe: FilterRecipe, tolerance: Double) throws {
        let before = try AuxiliaryExtractor.scan(path: original, decode: .all).auxiliaryImages
        let after = try AuxiliaryExtractor.scan(path: render, decode: .all).auxiliaryImages
        #expect(!before.isEmpty)
        #expect(after.map(\.type) == before.map(\.type), "\(original)")
        for (old, new) in zip(before, after) {
            guard case .eight(let o)? = old.samples, case .eight(let n)? = new.samples else {
                Issue.record("\(old.type): not 8-bit samples")
                continue
            }
            let expected = recipe.geometry(width: o.width, height: o.height).apply(to: o)
            #expect(n.width == expected.width && n.height == expected.height, "\(old.type): \(n.width)x\(n.height), not \(expected.width)x\(expected.height)")
            guard n.width == expected.width, n.height == expected.height, n.channels == expected.channels else { continue }
            let mean = zip(n.components, expected.components).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(n.components.count)
            #expect(mean <= tolerance, "\(old.type): mean difference \(mean)")
        }
    }

    @Test func aPortraitHEICsDepthAndMattesAreCroppedAndTurnedWithIt() throws {
        let scratch = try ScratchDirectory()
        let file = "apple-portrait-heic/pug.heic"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let steps = try Self.recipe("crop:x=0.2,y=0.1,width=0.6,height=0.7 rotate:degrees=90 straighten:degrees=2")
        let result = try library.edit(asset: id, steps: steps, extending: false)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let render = try #require(result.renders.first)
        let original = try HEIFFile(path: Media.path(file)).primaryImage(), rendered = try HEIFFile(path: render).primaryImage()
        let shape = FilterRecipe(steps: steps).geometry(width: original.width, height: original.height)
        #expect(rendered.width == shape.width && rendered.height == shape.height)
        #expect(rendered.width < rendered.height, "turned a quarter: portrait")
        let exif = try run("exiftool", ["-s3", "-n", "-ExifImageWidth", "-ExifImageHeight", render]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(exif == [shape.width, shape.height], "Exif \(exif)")
        // Depth and the gain map: reshaped at their own sizes (coded again, at quality 60).
        try Self.expectAuxiliaryImagesFollow(Media.path(file), render, FilterRecipe(steps: steps), tolerance: 1.5)
        #expect(try run("heif-info", [render]).status == 0)
    }

    /// IMG_8606's ISO 21496-1 gain map follows a crop and a turn: a `tmap` of the
    /// render's size (Apple sizes it as displayed) derives from the render and its
    /// reshaped gain-map image, offered in place of the render by an `altr` group, its
    /// metadata as it was.
    @Test func anISOGainMapFollowsACropAndATurn() throws {
        let path = Media.path("apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC")
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let recipe = FilterRecipe(steps: try Self.recipe("crop:x=0.1,y=0.3,width=0.5,height=0.4 rotate:degrees=90"))
        let render = try StillRenderer.render(path: path, recipe: recipe)
        #expect(!render.warnings.contains { $0.contains("gain map") }, "\(render.warnings)")
        let meta = try HEIFMetaBox(file: render.bytes), source = try HEIFMetaBox(file: original)
        let tmap = try #require(meta.itemInfos.first { $0.type == "tmap" }?.id)
        let derivation = try #require(meta.references.first { $0.type == "dimg" && $0.from == tmap })
        #expect(derivation.to.count == 2 && derivation.to[0] == meta.primaryItemID)
        let gainMap = derivation.to[1]
        #expect(meta.properties(of: gainMap).contains { $0.type == "auxC" && HEIFAuxiliaryWriter.auxType($0.box) == "urn:com:apple:photo:2020:aux:hdrgainmap" })
        #expect(HEIFMetaBox.alternativeGroups(in: render.bytes) == [[tmap, meta.primaryItemID]])
        let sourceTmap = try #require(source.itemInfos.first { $0.type == "tmap" }?.id)
        #expect(try meta.data(of: tmap, in: render.bytes) == source.data(of: sourceTmap, in: original))
        // Its size is the render's as displayed, as the original's is the original's.
        let rendered = try HEIFFile(bytes: render.bytes).primaryImage()
        let ispe = try #require(meta.properties(of: tmap).first { $0.type == "ispe" }?.box)
        let size = (Int(ispe[12]) << 24 | Int(ispe[13]) << 16 | Int(ispe[14]) << 8 | Int(ispe[15]), Int(ispe[16]) << 24 | Int(ispe[17]) << 16 | Int(ispe[18]) << 8 | Int(ispe[19]))
        #expect(size == (rendered.width, rendered.height), "tmap \(size), render \(rendered.width)x\(rendered.height)")
        // The gain map lines up with the render: the same shape, at its own resolution.
        let gain = try #require(rendered.auxiliaryImages().images.first { $0.urn == "urn:com:apple:photo:2020:aux:hdrgainmap" })
        let samples = try gain.decodeSamples()
        #expect(abs(Double(samples.width) / Double(samples.height) - Double(rendered.width) / Double(rendered.height)) < 0.02)
        let scratch = try ScratchDirectory()
        let file = scratch.url.appendingPathComponent("render.heic").path
        try Data(render.bytes).write(to: URL(fileURLWithPath: file))
        #expect(try run("heif-info", [file]).status == 0)
    }

    @Test func aPortraitJPEGsMPFImagesAreCroppedAndMirroredWithIt() throws {
        let scratch = try ScratchDirectory()
        let file = "apple-portrait-jpeg/jpeg_depth_data.jpg"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let steps = try Self.recipe("crop:x=0.5,width=0.5 flip")
        let result = try library.edit(asset: id, steps: steps, extending: false)
        let render = try #require(result.renders.first)
        // JPEG coding moves samples a little.
        try Self.expectAuxiliaryImagesFollow(Media.path(file), render, FilterRecipe(steps: steps), tolerance: 2)
        let size = try JPEGCodec.dimensions([UInt8](Data(contentsOf: URL(fileURLWithPath: render))))
        let original = try JPEGCodec.dimensions([UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(file)))))
        #expect(abs(size.width - original.width / 2) <= 1 && size.height == original.height)
        // The Exif says the new size too.
        let exif = try run("exiftool", ["-s3", "-n", "-ExifImageWidth", "-ExifImageHeight", render]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(exif == [size.width, size.height], "Exif \(exif)")
    }

    @Test func aPNGsTransparencyIsCroppedAndTurnedWithIt() throws {
        let scratch = try ScratchDirectory()
        let (file, rgba) = try EditTests.transparentPNG(in: scratch)
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"))
        _ = try Importer(library: library).run(paths: [file])
        let steps = try Self.recipe("crop:x=0.25,width=0.5 rotate:degrees=-90")
        let render = try #require(try library.edit(asset: try library.findAsset(file), steps: steps, extending: false).renders.first)
        let back = try PNGCodec.decodeRGBKeepingAlpha([UInt8](Data(contentsOf: URL(fileURLWithPath: render))))
        var alpha = PixelBuffer<UInt8>(width: 64, height: 48, channels: 1)
        for i in 0..<(64 * 48) { alpha.components[i] = rgba.components[i * 4 + 3] }
        let expected = FilterRecipe(steps: steps).geometry(width: 64, height: 48).apply(to: alpha)
        #expect(back.rgb.width == 48 && back.rgb.height == 32)
        #expect(back.alpha == expected.components)
    }

    @Test func aLivePhotosMovieIsCroppedToTheStillsShapeEveryFrame() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov"]
        let library = try EditTests.library(files, in: scratch)
        let id = try library.findAsset(Media.path(files[0]))
        let result = try library.edit(asset: id, steps: try Self.recipe("crop:aspect=1:1 straighten:degrees=4"), extending: false)
        #expect(result.renders.count == 2)
        let still = try HEIFFile(path: result.renders[0]).primaryImage()
        #expect(still.width == still.height)
        let movie = try #require(result.renders.first { $0.hasSuffix(".mov") })
        // Every frame, square, its turn kept; the container says the new size.
        let probe = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                        "stream=width,height,nb_read_frames", "-of", "csv=p=0", movie]).stdout
        let fields = probe.split(separator: "\n")[0].split(separator: ",").compactMap { Int($0) }
        #expect(fields.count == 3 && fields[0] == fields[1] && fields[0] < 1440 && fields[2] == 55, "\(probe)")
        let tkhd = try run("exiftool", ["-s3", "-n", "-ImageWidth", "-ImageHeight", movie]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(tkhd.count == 2 && tkhd[0] == fields[0] && tkhd[1] == fields[1], "tkhd \(tkhd)")
        let turn = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", movie]).stdout
        let originalTurn = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", Media.path(files[1])]).stdout
        #expect(turn == originalTurn)
    }
}
