import Codecs
import Containers
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Filters
@testable import Library

/// An 8-bit PNG too large to hold whole (a 200-megapixel one is 600 MB a copy) is edited a
/// band of rows at a time, as a 16-bit one is (`HighBitDepthRenderTests`): the same
/// picture as the render held whole, its samples as stored.
struct BandedPNGRenderTests {
    /// The originals: RGBA with an Exif orientation of 6 and a thumbnail; gray and alpha
    /// without Exif; RGB with a gAMA chunk and an Exif without orientation; RGB in linear
    /// light (gAMA 1.0), which libpng turns into sRGB; a palette of 256 colours (ffmpeg's pal8).
    static func originals(in folder: String) throws -> [(name: String, png: [UInt8])] {
        let (w, h) = (300, 290)
        func level(_ v: Int, _ range: Int) -> UInt8 { UInt8(v * 255 / (range - 1)) }
        var rgba = PixelBuffer<UInt8>(width: w, height: h, channels: 4)
        var grayAlpha = PixelBuffer<UInt8>(width: w, height: h, channels: 2)
        var rgb = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let colour = [level(x, w), level(w - 1 - x, w), level(y, h)]
                for c in 0..<3 {
                    rgba.components[i * 4 + c] = colour[c]
                    rgb.components[i * 3 + c] = colour[(c + 1) % 3]
                }
                rgba.components[i * 4 + 3] = UInt8(i * 255 / (w * h - 1))
                grayAlpha.components[i * 2] = level((x * 2 + y) % w, w)
                grayAlpha.components[i * 2 + 1] = level(y, h)
            }
        }
        let turned = try HighBitDepthRenderTests.inserting(
            PNGCodec.chunk(type: "eXIf", data: try HighBitDepthRenderTests.turnedExif(width: w, height: h)),
            in: try PNGCodec.encode(.eight(rgba), photographic: true))
        let gamma = try HighBitDepthRenderTests.inserting(
            PNGCodec.chunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F]) + PNGCodec.chunk(type: "eXIf", data: HighBitDepthRenderTests.plainExif),
            in: try PNGCodec.encode(.eight(rgb), photographic: true))
        let linear = try HighBitDepthRenderTests.inserting(PNGCodec.chunk(type: "gAMA", data: [0, 1, 0x86, 0xA0]), in: try PNGCodec.encode(.eight(rgb)))
        let palette = folder + "/palette.png"
        try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(w)x\(h)", "-frames:v", "1", "-pix_fmt", "pal8", palette])
        let pal8 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: palette)))
        #expect(try PNGChunks(parsing: pal8).chunks.contains { $0.type == "PLTE" })
        return [("rgba", turned), ("gray-alpha", try PNGCodec.encode(.eight(grayAlpha))), ("rgb", gamma), ("rgb-linear", linear), ("palette", pal8)]
    }

    /// Samples as shown (its Exif orientation applied) and as RGB(A), however it was stored.
    static func shown(_ render: StillRenderer.Render) throws -> (samples: PixelBuffer<UInt8>, stored: Int, orientation: Int?) {
        let decoded = try PNGCodec.decodeSamples(render.bytes, keepingAlpha: true)
        guard case .eight(let p) = decoded.samples else { throw MediaAnalyzer.Failure(reason: "not an 8-bit PNG") }
        let alpha = decoded.hadAlpha, colours = p.channels - (alpha ? 1 : 0)
        let outChannels = alpha ? 4 : 3
        var out = PixelBuffer<UInt8>(width: p.width, height: p.height, channels: outChannels)
        for i in 0..<(p.width * p.height) {
            for c in 0..<3 { out.components[i * outChannels + c] = p.components[i * p.channels + (colours == 1 ? 0 : c)] }
            if alpha { out.components[i * 4 + 3] = p.components[i * p.channels + p.channels - 1] }
        }
        let orientation = try PNGChunks(parsing: render.bytes).exifTIFF.flatMap { try EXIFMetadata(tiff: $0).orientation }
        return (out.applying(EXIFOrientation(exifValue: orientation ?? 1)), p.channels, orientation)
    }

    @Test(arguments: [
        "exposure:ev=1 warmth:amount=0.1", "crop:x=0.1,y=0.2,width=0.5,height=0.6 contrast:amount=0.2 vignette:strength=0.4",
        "rotate:degrees=90 flip:direction=horizontal saturation:amount=0.3", "straighten:degrees=3 exposure:ev=0.3",
        "crop:aspect=1:1 rotate:degrees=90 straighten:degrees=-4 sepia", "mono", "shadows:amount=0.4", "comic",
    ])
    func anEightBitPNGTooLargeToHoldWholeIsRenderedByBands(text: String) throws {
        let scratch = try ScratchDirectory("banded-png")
        let summarised = ["shadows", "comic"].contains { text.hasPrefix($0) }, straightens = text.contains("straighten")
        let turns = text.contains("rotate") && !text.contains("straighten")
        for (name, png) in try Self.originals(in: scratch.path) {
            let recipe = try HighBitDepthRenderTests.recipe(text)
            let (banded, whole) = (try StillRenderer.renderPNG(bytes: png, recipe: recipe, bandedAbove: 1000), try StillRenderer.renderPNG(bytes: png, recipe: recipe))
            #expect(banded.warnings.isEmpty && whole.warnings.isEmpty, "\(name), \(text): \(banded.warnings) \(whole.warnings)")
            let (a, b) = (try Self.shown(banded), try Self.shown(whole))
            #expect(a.samples.width == b.samples.width && a.samples.height == b.samples.height && a.samples.channels == b.samples.channels, "\(name), \(text)")
            guard a.samples.components.count == b.samples.components.count else { continue }
            if name == "rgb" && turns {
                // Its Exif cannot say how to show a turned picture: drawn whole and upright.
                #expect(a.samples == b.samples && a.orientation == nil)
                continue
            }
            // Gray stays gray while the render is, drawn by bands or whole. Drawn by bands,
            // samples of sRGB's gamma are as stored and their gAMA chunk stays to say how to
            // read them; linear ones are made sRGB, as libpng makes them decoded whole.
            let expected = ["rgba": 4, "rgb": 3, "rgb-linear": 3, "palette": 3, "gray-alpha": b.samples.isNeutralColour ? 2 : 4][name]
            #expect(a.stored == expected && b.stored == expected, "\(name), \(text): \(a.stored) and \(b.stored) channels")
            let chunks = try PNGChunks(parsing: banded.bytes)
            #expect(chunks.chunks.contains { $0.type == "gAMA" } == (name == "rgb"), "\(name)")
            HighBitDepthRenderTests.expectBandedAsWhole(a.samples, b.samples, straightens: straightens, summarised: summarised, meanWithin: 0.01, "\(name), \(text)")
            if turns, name != "rgb" {
                #expect(a.orientation != b.orientation && a.orientation != nil, "\(name)")
            }
            if name == "rgba" {
                let thumbnail = try #require(chunks.exifTIFF.map(Array.init).flatMap { ExifThumbnail.thumbnail(in: $0) })
                let pixels = try JPEGCodec.decode(thumbnail).pixels
                let stored = try PNGCodec.rowFormat(banded.bytes)
                #expect(abs(Double(pixels.width) / Double(pixels.height) - Double(stored.width) / Double(stored.height)) < 0.05)
            }
        }
    }
}

extension PixelBuffer<UInt8> {
    /// Whether every pixel's red, green and blue are equal (RGB or RGBA).
    fileprivate var isNeutralColour: Bool {
        (0..<(width * height)).allSatisfy { i in
            components[i * channels] == components[i * channels + 1] && components[i * channels + 1] == components[i * channels + 2]
        }
    }
}
