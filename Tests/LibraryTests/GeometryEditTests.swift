import Codecs
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
