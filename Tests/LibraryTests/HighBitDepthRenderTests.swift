import Codecs
import Containers
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Filters
@testable import Library

/// A 10-bit HEIC and a 16-bit PNG are edited at their depth: the render keeps its bits,
/// its colour description, and the levels between 8-bit ones.
struct HighBitDepthRenderTests {
    /// A smooth picture: red rising along x, green falling, blue along y.
    static func gradient(width: Int, height: Int) -> PixelBuffer<UInt16> {
        var p = PixelBuffer<UInt16>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x) / Double(width - 1)
                p[x: x, y: y, channel: 0] = UInt16((t * 65535).rounded())
                p[x: x, y: y, channel: 1] = UInt16(((1 - t) * 60000 + 2000).rounded())
                p[x: x, y: y, channel: 2] = UInt16((Double(y) / Double(height - 1) * 30000 + 15000).rounded())
            }
        }
        return p
    }

    static func recipe(_ text: String) throws -> FilterRecipe {
        try FilterRecipe(steps: text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
    }

    /// The mean of each column of one channel over `rows`.
    static func columnMeans(_ p: PixelBuffer<UInt16>, rows: Range<Int>, channel: Int) -> [Double] {
        (0..<p.width).map { x in rows.reduce(0.0) { $0 + Double(p[x: x, y: $1, channel: channel]) } / Double(rows.count) }
    }

    /// The distinct values of one channel along a row.
    static func levels(_ p: PixelBuffer<UInt16>, row: Int, channel: Int) -> Int {
        Set((0..<p.width).map { p[x: $0, y: row, channel: channel] }).count
    }

    @Test func aTenBitHEICIsRenderedAtTenBitsWithItsColourDescription() throws {
        let scratch = try ScratchDirectory()
        let source = Self.gradient(width: 1024, height: 256)
        var still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        (still.quality, still.thumbnailSide) = (90, nil)
        // BT.2020 primaries and matrix, PQ: an HDR photo as Android phones write them.
        still.colour = HEIFColourDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        let original = try HEIFEncoder.encodeRGB(still, sixteenBit: source, bits: 10)
        let path = scratch.url.appendingPathComponent("ten.heic").path
        try Data(original).write(to: URL(fileURLWithPath: path))
        #expect(try run("heif-info", [path]).stdout.contains("bit depth: 10"))

        for text in ["exposure:ev=0.5 crop:x=0.1,y=0.1,width=0.8,height=0.8 warmth:amount=0.2", "comic"] {
            let render = try StillRenderer.render(path: path, recipe: Self.recipe(text))
            #expect(render.warnings.isEmpty, "\(text): \(render.warnings)")
            let out = scratch.url.appendingPathComponent("render.heic").path
            try Data(render.bytes).write(to: URL(fileURLWithPath: out))
            // Another reader agrees it is 10-bit.
            #expect(try run("heif-info", [out]).stdout.contains("bit depth: 10"), "\(text)")
            let primary = try HEIFFile(bytes: render.bytes).primaryImage()
            #expect(primary.lumaBitDepth == 10 && primary.colourDescription == still.colour, "\(text)")
        }

        // Above the size held whole at 16 bits, a picture coded whole (not a grid, so not
        // drawn by tiles) is rendered at 8 bits, and the render says so.
        let large = try StillRenderer.renderHEIF(
            path: path, bytes: original, auxiliaryBytes: original, recipe: Self.recipe("mono"), embeddedMovie: nil, tiledAbove: 100_000)
        #expect(
            large.warnings == [
                "the 10-bit photo was rendered with 8 bits per sample (above 0.1 megapixels, camlib keeps 10 and 12 bits "
                    + "only for a HEIC grid edited without depth, its geometry before all but colour steps)"
            ])
        #expect(try HEIFFile(bytes: large.bytes).primaryImage().lumaBitDepth == 8)

        let render = try StillRenderer.render(path: path, recipe: Self.recipe("exposure:ev=0.5 crop:x=0.1,y=0.1,width=0.8,height=0.8"))
        let decoded = try HEIFFile(bytes: render.bytes).primaryImage().decodeRGB16()
        #expect(decoded.width == 820 && decoded.height == 204)
        // Levels between the 8-bit ones survive: 8 bits would leave at most 256 of them.
        #expect(Self.levels(decoded, row: 100, channel: 0) > 400, "\(Self.levels(decoded, row: 100, channel: 0)) levels of red")
        // And the picture is the recipe over the original, within what lossy coding moves.
        let expected = try Self.recipe("exposure:ev=0.5 crop:x=0.1,y=0.1,width=0.8,height=0.8")
            .apply(to: try HEIFFile(path: path).primaryImage().decodeRGB16())
        let difference = zip(decoded.components, expected.components).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) }
        #expect(difference / Double(decoded.components.count) < 65535 * 0.01, "mean difference \(difference / Double(decoded.components.count))")
    }

    /// A 10-bit HEIC grid too large to hold whole is drawn tile by tile at 16 bits and
    /// coded as a 10-bit grid of the same tiles: the steps that work at 16 bits (curves,
    /// local tone, vignette, noir) keep the levels between 8-bit ones, and the render is
    /// the one held whole would be, its colour description kept.
    @Test(arguments: [
        "exposure:ev=0.5 warmth:amount=0.2 highlights:amount=-0.3 shadows:amount=0.3",
        "vignette:strength=0.4 saturation:amount=0.3 vibrance:amount=0.2 contrast:amount=0.2",
        "noir", "posterize exposure:ev=-0.3", "crop:x=0.1,y=0.15,width=0.8,height=0.7 exposure:ev=0.5 shadows:amount=0.3",
        "straighten:degrees=3 warmth:amount=0.2",
    ])
    func aTenBitGridTooLargeToHoldWholeStaysTenBit(recipe text: String) throws {
        let scratch = try ScratchDirectory()
        let source = Self.gradient(width: 1024, height: 768)
        let tiling = HEIFImage.Tiling(columns: 4, rows: 3, tileWidth: 256, tileHeight: 256, width: 1024, height: 768)
        var settings = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        (settings.quality, settings.thumbnailSide) = (90, 160)
        settings.colour = HEIFColourDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        let original = try HEIFEncoder.encodeGrid(HEIFEncoder.GridStill(tiling: tiling, settings: settings), bits: 10, tile: { column, row, _ in
            var tile = PixelBuffer<UInt16>(width: 256, height: 256, channels: 3)
            for y in 0..<256 { for x in 0..<256 { for c in 0..<3 { tile[x: x, y: y, channel: c] = source[x: column * 256 + x, y: row * 256 + y, channel: c] } } }
            return tile
        }, thumbnail: { nil })
        let path = scratch.url.appendingPathComponent("grid.heic").path
        try Data(original).write(to: URL(fileURLWithPath: path))
        // Another reader sees a 10-bit grid of 12 tiles.
        let info = try run("heif-info", [path]).stdout
        #expect(info.contains("bit depth: 10") && info.contains("1024x768"), "\(info)")
        #expect(try HEIFFile(path: path).primaryImage().storedTiling == tiling)

        func render(tiledAbove: Int) throws -> StillRenderer.Render {
            try StillRenderer.renderHEIF(
                path: path, bytes: original, auxiliaryBytes: original, recipe: Self.recipe(text), embeddedMovie: nil, tiledAbove: tiledAbove)
        }
        let tiled = try render(tiledAbove: 100_000), whole = try render(tiledAbove: .max)
        #expect(tiled.warnings.isEmpty, "\(tiled.warnings)")
        let out = scratch.url.appendingPathComponent("render.heic").path
        try Data(tiled.bytes).write(to: URL(fileURLWithPath: out))
        #expect(try run("heif-info", [out]).stdout.contains("bit depth: 10"))
        let primary = try HEIFFile(bytes: tiled.bytes).primaryImage()
        #expect(primary.lumaBitDepth == 10 && primary.colourDescription == settings.colour)
        // The original's tiles, or a crop's cut into tiles of their size.
        let cropped = text.hasPrefix("crop") || text.hasPrefix("straighten")
        #expect(primary.storedTiling?.tileWidth == 256 && (cropped || primary.storedTiling == tiling))
        let (a, b) = (try primary.decodeRGB16(), try HEIFFile(bytes: whole.bytes).primaryImage().decodeRGB16())
        #expect(a.width == b.width && a.height == b.height)
        let difference = zip(a.components, b.components).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(a.components.count)
        #expect(difference < 65535 * 0.005, "mean difference from the render held whole: \(difference)")
        // Levels between 8-bit ones survive: down each column (the ramp runs across), the
        // mean of most of its rows, rid of most of the coding's noise, follows the recipe over the
        // original at 16 bits as closely as the render held whole does. (With its curves
        // drawn at 8 bits, the staircase made it 40 to 140% further off.)
        guard !text.hasPrefix("posterize") else { return }
        let expected = try Self.recipe(text).apply(to: try HEIFFile(path: path).primaryImage().decodeRGB16())
        let channel = text == "noir" ? 1 : 0
        func offAtRMS(_ p: PixelBuffer<UInt16>) -> Double {
            let rows = (p.height / 10)..<(p.height * 9 / 10)
            let (means, expectedMeans) = (Self.columnMeans(p, rows: rows, channel: channel), Self.columnMeans(expected, rows: rows, channel: channel))
            return (zip(means, expectedMeans).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / Double(means.count)).squareRoot()
        }
        let (tiledOff, wholeOff) = (offAtRMS(a), offAtRMS(b))
        #expect(tiledOff < wholeOff * 1.15 + 2, "the columns' means are \(tiledOff) from the recipe's at 16 bits at RMS, the whole render's \(wholeOff)")
    }

    /// A 10-bit AVIF stays a 10-bit AVIF, the recipe drawn at 16 bits.
    @Test func aTenBitAVIFStaysTenBit() throws {
        let scratch = try ScratchDirectory()
        var still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        (still.compression, still.quality, still.thumbnailSide) = (.av1, 80, nil)
        let path = scratch.url.appendingPathComponent("ten.avif").path
        try Data(try HEIFEncoder.encodeRGB(still, sixteenBit: Self.gradient(width: 512, height: 128), bits: 10)).write(to: URL(fileURLWithPath: path))
        let render = try StillRenderer.render(path: path, recipe: Self.recipe("shadows:amount=0.4 flip:direction=horizontal"))
        #expect(render.format == .avif && render.warnings.isEmpty, "\(render.warnings)")
        let primary = try HEIFFile(bytes: render.bytes).primaryImage()
        #expect(primary.lumaBitDepth == 10)
        // The recipe over the original, within what lossy coding moves (SVT-AV1 at the
        // quality that fits the original's bytes smooths a ramp's levels: the HEIC and PNG
        // tests count them).
        let expected = try Self.recipe("shadows:amount=0.4 flip:direction=horizontal").apply(to: try HEIFFile(path: path).primaryImage().decodeRGB16())
        let decoded = try primary.decodeRGB16()
        let difference = zip(decoded.components, expected.components).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(decoded.components.count)
        #expect(difference < 65535 * 0.015, "mean difference \(difference)")
    }

    /// A 16-bit RGBA PNG stays 16-bit RGBA: the exposure exact at 16 bits, the alpha
    /// turned with the picture sample for sample, its gAMA kept (the samples are as stored).
    @Test func aSixteenBitPNGIsRenderedAtSixteenBitsWithItsAlpha() throws {
        let scratch = try ScratchDirectory()
        let (w, h) = (600, 40)
        let colour = Self.gradient(width: w, height: h)
        var rgba = PixelBuffer<UInt16>(width: w, height: h, channels: 4)
        for i in 0..<(w * h) {
            for c in 0..<3 { rgba.components[i * 4 + c] = colour.components[i * 3 + c] }
            rgba.components[i * 4 + 3] = UInt16(i * 65535 / (w * h - 1))
        }
        var png = try PNGCodec.encode(.sixteen(rgba, significantBits: 16), photographic: true)
        let header = try #require(try PNGChunks(parsing: png).chunks.first)
        png.insert(contentsOf: PNGCodec.chunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F]), at: header.range.upperBound)
        let path = scratch.url.appendingPathComponent("deep.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))

        let render = try StillRenderer.render(path: path, recipe: Self.recipe("exposure:ev=1 rotate:degrees=90"))
        #expect(render.warnings.isEmpty, "\(render.warnings)")
        #expect(try PNGChunks(parsing: render.bytes).chunks.contains { $0.type == "gAMA" })
        guard case .sixteen(let out, 16) = try PNGCodec.decodeSamples(render.bytes, keepingAlpha: true).samples else {
            Issue.record("the render is not a 16-bit PNG")
            return
        }
        #expect(out.width == h && out.height == w && out.channels == 4)
        // Turned a quarter clockwise: the output's (x, y) is the input's (y, h - 1 - x).
        var worst = 0.0
        for y in stride(from: 0, to: w, by: 3) {
            for x in 0..<h {
                let (sx, sy) = (y, h - 1 - x)
                #expect(out[x: x, y: y, channel: 3] == rgba[x: sx, y: sy, channel: 3])
                for c in 0..<3 {
                    let light = SRGB.linear(Double(rgba[x: sx, y: sy, channel: c]) / 65535)
                    worst = max(worst, abs(Double(out[x: x, y: y, channel: c]) - SRGB.encoded(min(1, 2 * light)) * 65535))
                }
            }
        }
        #expect(worst <= 1, "worst difference from twice the light: \(worst) of 65535")
        var column = PixelBuffer<UInt16>(width: w, height: 1, channels: 4)
        for y in 0..<w { for c in 0..<4 { column[x: y, y: 0, channel: c] = out[x: 5, y: y, channel: c] } }
        #expect(Self.levels(column, row: 0, channel: 1) > 400)
    }

    /// A gray 16-bit PNG of 12 significant bits stays gray at 12 bits through a gray
    /// recipe, and becomes RGB through one that colours it.
    @Test func aGraySixteenBitPNGKeepsItsSignificantBits() throws {
        let scratch = try ScratchDirectory()
        var gray = PixelBuffer<UInt16>(width: 300, height: 20, channels: 1)
        for i in gray.components.indices { gray.components[i] = UInt16(i % 300 * 4095 / 299) }
        let path = scratch.url.appendingPathComponent("gray.png").path
        try Data(try PNGCodec.encode(.sixteen(gray, significantBits: 12))).write(to: URL(fileURLWithPath: path))
        let mono = try StillRenderer.render(path: path, recipe: Self.recipe("contrast:amount=0.4 mono"))
        guard case .sixteen(let out, let bits) = try PNGCodec.decodeSamples(mono.bytes).samples else {
            Issue.record("the render is not a 16-bit PNG")
            return
        }
        #expect(bits == 12 && out.channels == 1)
        #expect(Self.levels(out, row: 10, channel: 0) > 256)
        let sepia = try StillRenderer.render(path: path, recipe: Self.recipe("sepia"))
        #expect(try PNGCodec.decodeSamples(sepia.bytes).samples.channels == 3)
    }

    /// The originals a banded PNG render is tried on: 16-bit RGBA with gAMA and an Exif
    /// (orientation 6, a thumbnail); 12-bit gray without Exif; 16-bit RGB whose Exif has
    /// no orientation.
    static func bandedOriginals() throws -> [(name: String, png: [UInt8])] {
        let (w, h) = (300, 290)
        let colour = gradient(width: w, height: h)
        var rgba = PixelBuffer<UInt16>(width: w, height: h, channels: 4)
        for i in 0..<(w * h) {
            for c in 0..<3 { rgba.components[i * 4 + c] = colour.components[i * 3 + c] }
            rgba.components[i * 4 + 3] = UInt16(i * 65535 / (w * h - 1))
        }
        let turned = try inserting(
            PNGCodec.chunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F]) + PNGCodec.chunk(type: "eXIf", data: try turnedExif(width: w, height: h)),
            in: try PNGCodec.encode(.sixteen(rgba, significantBits: 16), photographic: true))
        var gray = PixelBuffer<UInt16>(width: w, height: h, channels: 1)
        for y in 0..<h { for x in 0..<w { gray.components[y * w + x] = UInt16((x * 2 + y) * 4095 / (w * 2 + h)) } }
        let rgb = try inserting(PNGCodec.chunk(type: "eXIf", data: plainExif), in: try PNGCodec.encode(.sixteen(colour, significantBits: 16), photographic: true))
        return [("rgba", turned), ("gray", try PNGCodec.encode(.sixteen(gray, significantBits: 12))), ("rgb", rgb)]
    }

    /// A render drawn by bands against the same render held whole: exactly the same,
    /// within 2 levels when straightened (interpolated from a band's rows, not the whole
    /// picture's), and within `meanWithin` of the full range on average when a step
    /// decides by a summary of the picture (`summarised`: gathered band by band).
    static func expectBandedAsWhole<T: FixedWidthInteger & PixelComponent>(
        _ banded: PixelBuffer<T>, _ whole: PixelBuffer<T>, straightens: Bool, summarised: Bool, meanWithin: Double, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if straightens {
            let worst = zip(banded.components, whole.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 2, "\(label): \(worst) levels from the render held whole", sourceLocation: sourceLocation)
        } else if !summarised {
            #expect(banded == whole, "\(label)", sourceLocation: sourceLocation)
        } else {
            let difference = zip(banded.components, whole.components).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(banded.components.count)
            #expect(difference < Double(T.max) * meanWithin, "\(label): mean difference from the render held whole \(difference)", sourceLocation: sourceLocation)
        }
    }

    /// `png` with `chunks` put right after its header.
    static func inserting(_ chunks: [UInt8], in png: [UInt8]) throws -> [UInt8] {
        var png = png
        let header = try #require(try PNGChunks(parsing: png).chunks.first)
        png.insert(contentsOf: chunks, at: header.range.upperBound)
        return png
    }

    /// An Exif of a `width`×`height` picture shown turned (orientation 6), with a thumbnail.
    static func turnedExif(width: Int, height: Int) throws -> [UInt8] {
        var exif = TIFFWriter()
        exif.ifd0 = [(0x0112, .short([6]))]
        exif.exif = [(0xA002, .long([UInt32(width)])), (0xA003, .long([UInt32(height)]))]
        exif.thumbnailJPEG = try JPEGCodec.encode(PixelBuffer(width: 160, height: 155, channels: 3), quality: 80)
        return exif.bytes()
    }

    /// An Exif without an orientation: a turn cannot be written into it.
    static var plainExif: [UInt8] {
        var plain = TIFFWriter()
        plain.ifd0 = [(0x0131, .ascii("a scanner"))]
        return plain.bytes()
    }

    /// A 16-bit PNG too large to hold whole at 16 bits is rendered a band of rows at a
    /// time and stays 16-bit: the same picture as the render held whole (exactly, but
    /// for the steps that decide by a summary of the picture), its alpha, gray and
    /// significant bits kept, a leading turn or flip written as its new orientation.
    @Test(arguments: [
        "exposure:ev=1 warmth:amount=0.1", "crop:x=0.1,y=0.2,width=0.5,height=0.6 contrast:amount=0.2 vignette:strength=0.4",
        "rotate:degrees=90 flip:direction=horizontal saturation:amount=0.3", "warmth:amount=0.2 rotate:degrees=270 crop:aspect=4:3",
        "straighten:degrees=3 exposure:ev=0.3", "crop:aspect=1:1 rotate:degrees=90 straighten:degrees=-4 sepia", "mono", "sepia", "highlights:amount=-0.4 contrast:amount=0.3", "shadows:amount=0.4", "comic",
    ])
    func aSixteenBitPNGTooLargeToHoldWholeIsRenderedByBands(text: String) throws {
        let summarised = ["highlights", "shadows", "comic"].contains { text.hasPrefix($0) }, straightens = text.contains("straighten")
        // A turn is a new orientation; straightened too, it is resampled with the rest.
        let turns = text.contains("rotate") && !text.contains("straighten")
        for (name, png) in try Self.bandedOriginals() {
            let recipe = try Self.recipe(text)
            let (banded, whole) = (try StillRenderer.renderPNG(bytes: png, recipe: recipe, bandedAbove: 1000), try StillRenderer.renderPNG(bytes: png, recipe: recipe))
            #expect(whole.warnings.isEmpty, "\(name), \(text): \(whole.warnings)")
            func shown(_ render: StillRenderer.Render) throws -> (samples: PixelBuffer<UInt16>, bits: Int, orientation: Int?) {
                guard case .sixteen(let p, let bits) = try PNGCodec.decodeSamples(render.bytes, keepingAlpha: true).samples else {
                    throw MediaAnalyzer.Failure(reason: "not a 16-bit PNG")
                }
                let orientation = try PNGChunks(parsing: render.bytes).exifTIFF.flatMap { try EXIFMetadata(tiff: $0).orientation }
                return (p.applying(EXIFOrientation(exifValue: orientation ?? 1)), bits, orientation)
            }
            if name == "rgb" && turns {
                // Its Exif cannot say how to show a turned picture: drawn upright, at 8 bits.
                #expect(banded.warnings.contains { $0.contains("8 bits per sample") }, "\(banded.warnings)")
                #expect(try PNGCodec.decodeSamples(banded.bytes).samples.bitDepth == 8)
                continue
            }
            #expect(banded.warnings.isEmpty, "\(name), \(text): \(banded.warnings)")
            let (a, b) = (try shown(banded), try shown(whole))
            #expect(a.bits == b.bits && a.bits == (name == "gray" ? 12 : 16), "\(name), \(text)")
            #expect(a.samples.width == b.samples.width && a.samples.height == b.samples.height && a.samples.channels == b.samples.channels)
            if name == "rgba" { #expect(a.samples.channels == 4) }
            // Gray stays gray until a step colours it (written again as RGB).
            if name == "gray" && (text == "mono" || text == "sepia") { #expect(a.samples.channels == (text == "mono" ? 1 : 3)) }
            Self.expectBandedAsWhole(a.samples, b.samples, straightens: straightens, summarised: summarised, meanWithin: 0.005, "\(name), \(text)")
            // The turn is a new orientation of the stored samples (a PNG without Exif gains one).
            if turns {
                #expect(a.orientation != b.orientation, "\(name)")
                #expect(a.orientation != nil)
            }
            let chunks = try PNGChunks(parsing: banded.bytes)
            if name == "rgba" {
                #expect(chunks.chunks.contains { $0.type == "gAMA" })
                // The Exif thumbnail is the render's, at its shape.
                let tiff = try #require(chunks.exifTIFF.map(Array.init))
                let thumbnail = try #require(ExifThumbnail.thumbnail(in: tiff))
                let pixels = try JPEGCodec.decode(thumbnail).pixels
                let stored = try PNGCodec.rowFormat(banded.bytes)
                #expect(abs(Double(pixels.width) / Double(pixels.height) - Double(stored.width) / Double(stored.height)) < 0.05)
            }
        }
    }

    /// Geometry after a step that reads a pixel's place in the frame must see the picture
    /// whole: a large 16-bit PNG is then drawn whole at 8 bits, and says so.
    @Test func aLargeSixteenBitPNGEditedWithGeometryAfterAVignetteIsRenderedAtEightBitsWithAWarning() throws {
        let png = try #require(try Self.bandedOriginals().first).png
        let render = try StillRenderer.renderPNG(bytes: png, recipe: try Self.recipe("vignette:strength=0.3 straighten:degrees=3"), bandedAbove: 1000)
        #expect(render.warnings.contains { $0.contains("8 bits per sample") && $0.contains("geometry") }, "\(render.warnings)")
        #expect(try PNGCodec.decodeSamples(render.bytes).samples.bitDepth == 8)
        // The same picture as the 16-bit render, to a level: 16-bit samples without a gAMA
        // chunk are sRGB at 8 bits too (libpng's simplified API would take them for linear
        // light, brightening a quarter to a half).
        for (name, png) in try Self.bandedOriginals() {
            let recipe = try Self.recipe("vignette:strength=0.3 straighten:degrees=3")
            let eight = try PNGCodec.decodeSamples(try StillRenderer.renderPNG(bytes: png, recipe: recipe, bandedAbove: 1000).bytes, keepingAlpha: true)
            let sixteen = try PNGCodec.decodeSamples(try StillRenderer.renderPNG(bytes: png, recipe: recipe).bytes, keepingAlpha: true)
            guard case .eight(let e) = eight.samples, case .sixteen(let d, let bits) = sixteen.samples else {
                Issue.record("\(name): \(eight.samples.bitDepth) and \(sixteen.samples.bitDepth) bits")
                continue
            }
            #expect(e.width == d.width && e.height == d.height && eight.hadAlpha == sixteen.hadAlpha, "\(name)")
            let alpha = sixteen.hadAlpha, (ec, dc) = (e.channels - (alpha ? 1 : 0), d.channels - (alpha ? 1 : 0))
            var total = 0.0, count = 0
            for y in 0..<min(e.height, d.height) {
                for x in 0..<min(e.width, d.width) where !alpha || e[x: x, y: y, channel: e.channels - 1] >= 128 {
                    for c in 0..<max(ec, dc) {
                        let deep = Double(d[x: x, y: y, channel: min(c, dc - 1)]) * 255 / Double((1 << bits) - 1)
                        total += abs(Double(e[x: x, y: y, channel: min(c, ec - 1)]) - deep)
                        count += 1
                    }
                }
            }
            #expect(count > 0 && total / Double(count) < 1.5, "\(name): off by \(total / Double(max(1, count))) on average")
        }
    }
}
