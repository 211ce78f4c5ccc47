import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// Renders show the edit everywhere a reader looks (embedded previews too), keep what
/// the original was (its channels), and weigh no more than it.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct RenderFidelityTests {
    /// A PNG's Exif thumbnail (kimono.png has one, in ImageMagick's raw Exif profile) is
    /// made again from the render, in an eXIf chunk: a mono edit's thumbnail is gray, the
    /// original's is not.
    @Test func aPNGRendersExifThumbnailShowsTheRender() throws {
        let path = Media.path("orientation/kimono.png")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let render = try StillRenderer.render(path: path, recipe: FilterRecipe(steps: [try FilterStep(name: "mono")]))
        func thumbnail(_ png: [UInt8]) throws -> PixelBuffer<UInt8> {
            let chunks = try PNGChunks(parsing: png)
            let profile = chunks.chunks.first { $0.type == "zTXt" }.flatMap { PNGCodec.rawExifProfile(zTXt: png[($0.range.lowerBound + 8)..<($0.range.upperBound - 4)]) }
            let tiff = try #require(chunks.exifTIFF.map(Array.init) ?? profile)
            let jpeg = try #require(ExifThumbnail.thumbnail(in: tiff))
            return try JPEGCodec.decode(jpeg).pixels
        }
        #expect(EditTests.grayShare(try thumbnail(original)) < 0.5)
        #expect(EditTests.grayShare(try thumbnail(render.bytes)) > 0.99)
        #expect(try PNGChunks(parsing: render.bytes).chunks.filter { $0.type == "zTXt" || $0.type == "eXIf" }.map(\.type) == ["eXIf"])
        // Independent readers agree: libpng reads the file, exiftool the chunk's CRC.
        _ = try PNGCodec.decodeRGB(render.bytes)
        let scratch = try ScratchDirectory()
        let file = scratch.url.appendingPathComponent("render.png")
        try Data(render.bytes).write(to: file)
        let exiftool = try run("exiftool", ["-validate", "-warning", "-s3", file.path])
        #expect(!exiftool.stdout.lowercased().contains("crc"), "\(exiftool.stdout)")
    }

    /// A gray JPEG stays a gray JPEG when the recipe leaves it gray, no heavier than the
    /// original; a recipe that colours it gives colour.
    @Test func aGrayJPEGStaysGrayWhereTheRecipeAllows() throws {
        let scratch = try ScratchDirectory()
        // A real photo made gray (its luma), as a scanner or a camera's mono mode writes it.
        let colour = try JPEGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("orientation/Landscape_1.jpg")))), output: .gray)
        let gray = try JPEGCodec.encode(colour.pixels, quality: 90)
        let path = scratch.url.appendingPathComponent("gray.jpg").path
        try Data(gray).write(to: URL(fileURLWithPath: path))
        func components(_ jpeg: [UInt8]) throws -> Int {
            let frame = try #require(try JPEGSegments(parsing: jpeg).segments.first { $0.marker == 0xC0 || $0.marker == 0xC2 })
            return Int(frame.payload[frame.payload.startIndex + 5])
        }
        #expect(try components(gray) == 1)
        for recipe in ["mono", "sepia:intensity=0", "noir"] {
            let render = try StillRenderer.render(path: path, recipe: FilterRecipe(steps: [try FilterStep(parsing: recipe)]))
            #expect(try components(render.bytes) == 1, "\(recipe)")
            #expect(render.bytes.count <= gray.count, "\(recipe): \(render.bytes.count) bytes for \(gray.count)")
        }
        let sepia = try StillRenderer.render(path: path, recipe: FilterRecipe(steps: [try FilterStep(parsing: "sepia")]))
        #expect(try components(sepia.bytes) == 3)
    }

    /// Renders weigh no more than their originals: an AVIF (kimono.avif, which has no
    /// thumbnail item, so its render gets none), a Live Photo's still and movie (the
    /// encoder's buffer no longer lets a 3-second movie overshoot), and the edit does not
    /// have to say otherwise.
    @Test func rendersWeighNoMoreThanTheirOriginals() throws {
        let avif = Media.path("orientation/kimono.avif")
        let render = try StillRenderer.render(path: avif, recipe: FilterRecipe(steps: [try FilterStep(name: "comic")]))
        let original = try FileManager.default.attributesOfItem(atPath: avif)[.size] as! Int
        #expect(render.bytes.count <= original, "\(render.bytes.count) bytes for \(original)")
        #expect(try HEIFFile(bytes: render.bytes).primaryImage().thumbnail() == nil)

        let scratch = try ScratchDirectory()
        let files = ["apple-live-photo/IMG_4394.HEIC", "apple-live-photo/IMG_4394.mov"]
        let library = try EditTests.library(files, in: scratch)
        let edit = try library.edit(asset: try library.findAsset(Media.path(files[0])), steps: [try FilterStep(name: "mono")], extending: false)
        #expect(edit.warnings.isEmpty, "\(edit.warnings)")
        for (render, original) in zip(edit.renders, files.map(Media.path)) {
            let (a, b) = (try FileManager.default.attributesOfItem(atPath: render)[.size] as! Int, try FileManager.default.attributesOfItem(atPath: original)[.size] as! Int)
            #expect(a <= b, "\(URL(fileURLWithPath: original).lastPathComponent): \(a) bytes for \(b)")
        }
    }
}
