import Imaging
import Synchronization
import Testing

@testable import Filters

/// Pictures too large to hold whole are rendered tile by tile (`RegionRendering`): the
/// tiles, put together, must be the picture rendered whole.
struct RegionRenderingTests {
    /// The picture cut into tiles (the right and bottom ones smaller), each passed through
    /// `body` at its place, and put together again.
    static func byTiles<T: PixelComponent>(
        _ picture: PixelBuffer<T>, tile: (width: Int, height: Int), _ body: (inout PixelBuffer<T>, Int, Int) -> Void
    ) -> PixelBuffer<T> {
        var out = PixelBuffer<T>(width: picture.width, height: picture.height, channels: 3)
        for top in stride(from: 0, to: picture.height, by: tile.height) {
            for left in stride(from: 0, to: picture.width, by: tile.width) {
                let (w, h) = (min(tile.width, picture.width - left), min(tile.height, picture.height - top))
                var region = PixelBuffer<T>(width: w, height: h, channels: 3)
                for y in 0..<h {
                    for x in 0..<(w * 3) { region.components[y * w * 3 + x] = picture.components[((top + y) * picture.width + left) * 3 + x] }
                }
                body(&region, left, top)
                for y in 0..<h {
                    for x in 0..<(w * 3) { out.components[((top + y) * picture.width + left) * 3 + x] = region.components[y * w * 3 + x] }
                }
            }
        }
        return out
    }

    @Test(arguments: [
        "comic", "posterize", "vignette", "mono", "noir", "sepia", "noir vignette", "sepia comic vignette",
        "exposure:ev=0.7 contrast:amount=0.3 shadows:amount=0.4 highlights:amount=-0.5 saturation:amount=0.2 vibrance:amount=0.3 warmth:amount=0.2 tint:amount=-0.1 comic",
        "shadows:amount=0.6", "highlights:amount=-0.7 vignette", "posterize comic",
    ])
    func tilesPutTogetherAreThePictureRenderedWhole(recipe text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
        // Larger than the working size, so the summary is an average of several pixels.
        let picture = ComicFilterTests.scene(width: 1500, height: 1100, noise: 4)
        let whole = recipe.apply(to: picture)
        let rendering = try #require(RegionRendering(recipe: recipe, width: 1500, height: 1100))
        let tile = (width: 512, height: 384)
        // A pass for each step that decides by the whole picture.
        var passes = 0
        while rendering.needsSummary {
            _ = Self.byTiles(picture, tile: tile) { region, x, y in rendering.summarize(region, x: x, y: y) }
            rendering.finishSummary()
            passes += 1
        }
        #expect(passes == ["comic", "posterize", "shadows", "highlights"].reduce(0) { n, name in n + text.components(separatedBy: name).count - 1 })
        #expect(!rendering.needsSummary)
        let tiled = Self.byTiles(picture, tile: tile) { region, x, y in rendering.draw(&region, x: x, y: y) }
        // The summary adds the same shares in another order: a few samples may differ in
        // their last bits, and a pixel on a threshold by a level.
        var differing = 0, largest = 0
        for i in whole.components.indices where whole.components[i] != tiled.components[i] {
            differing += 1
            largest = max(largest, abs(Int(whole.components[i]) - Int(tiled.components[i])))
        }
        #expect(Double(differing) / Double(whole.components.count) < 0.001 && largest <= 2, "\(differing) samples differ, by up to \(largest)")
        if !["comic", "posterize", "shadows", "highlights"].contains(where: text.contains) { #expect(differing == 0) }
        // A comic is drawn from its summary alone: the second pass need not read the picture.
        #expect(rendering.drawReadsPixels == !text.contains("comic"))
    }

    /// The same at 16 bits (a 10-bit HEIC grid): the tiles put together are the picture
    /// rendered whole at 16 bits, each step that works at 16 bits drawn at that depth, the
    /// others (comic, posterize) on the region rounded to 8 bits, as on a whole picture.
    @Test(arguments: [
        "comic", "posterize", "vignette", "mono", "noir", "sepia", "noir vignette", "sepia comic vignette",
        "exposure:ev=0.7 contrast:amount=0.3 shadows:amount=0.4 highlights:amount=-0.5 saturation:amount=0.2 vibrance:amount=0.3 warmth:amount=0.2 tint:amount=-0.1 comic",
        "exposure:ev=0.7 contrast:amount=0.3 saturation:amount=0.2 vibrance:amount=0.3 warmth:amount=0.2 tint:amount=-0.1 vignette",
        "shadows:amount=0.6", "highlights:amount=-0.7 vignette", "posterize exposure:ev=0.3",
    ])
    func sixteenBitTilesPutTogetherAreThePictureRenderedWholeAtSixteenBits(recipe text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
        let picture = ComicFilterTests.scene(width: 1500, height: 1100, noise: 4).sixteenBit()
        let whole = recipe.apply(to: picture)
        let rendering = try #require(RegionRendering(recipe: recipe, width: 1500, height: 1100, sixteenBit: true))
        let tile = (width: 512, height: 384)
        while rendering.needsSummary {
            _ = Self.byTiles(picture, tile: tile) { region, x, y in rendering.summarize(region, x: x, y: y) }
            rendering.finishSummary()
        }
        let tiled = Self.byTiles(picture, tile: tile) { region, x, y in rendering.draw(&region, x: x, y: y) }
        // As at 8 bits, a summary's sums may differ in their last bits: a pixel on a
        // threshold by a level or two (of 256: 257 each at 16 bits).
        var differing = 0, largest = 0
        for i in whole.components.indices where whole.components[i] != tiled.components[i] {
            differing += 1
            largest = max(largest, abs(Int(whole.components[i]) - Int(tiled.components[i])))
        }
        #expect(Double(differing) / Double(whole.components.count) < 0.001 && largest <= 2 * 257, "\(differing) samples differ, by up to \(largest)")
        if !["comic", "posterize", "shadows", "highlights"].contains(where: text.contains) { #expect(differing == 0) }
        // Drawn at 16 bits, not rounded to 8: levels between 8-bit ones (multiples of 257).
        if !text.contains("comic") && !text.hasPrefix("posterize") {
            #expect(tiled.components.contains { $0 % 257 != 0 })
        }
    }

    /// A movie's comic frames are drawn from the frame averaged down to the working size
    /// alone (the decoder's scaler averages it): the same picture as the comic of the
    /// whole frame, but for the average's rounding to 8 bits.
    @Test(arguments: ["comic", "comic,vignette", "mono,comic", "posterize", "vignette"])
    func aComicIsDrawnFromTheAverageAlone(recipe text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: ",").map { try FilterStep(name: String($0)) })
        let (w, h) = (1500, 1100)
        let rendering = try #require(RegionRendering(recipe: recipe, width: w, height: h))
        // Only when the summarising step comes first and draws from its summary alone.
        guard let size = rendering.summaryAloneSize else {
            #expect(!text.hasPrefix("comic"))
            return
        }
        #expect(text.hasPrefix("comic"))
        let picture = ComicFilterTests.scene(width: w, height: h, noise: 4)
        let average = AreaAccumulator(width: w, height: h, shortSide: ComicFilter.workingShortSide)
        average.add(picture, x: 0, y: 0)
        let averaged = average.averagedPicture()
        #expect((averaged.width, averaged.height) == (size.width, size.height))
        rendering.summarize(averaged: averaged)
        #expect(!rendering.needsSummary && !rendering.drawReadsPixels)
        // Drawn over a frame that holds anything: none of it shows.
        var drawn = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        for i in drawn.components.indices { drawn.components[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        rendering.draw(&drawn, x: 0, y: 0)
        let (mean, far) = Self.difference(recipe.apply(to: picture), drawn)
        // A tone or a line's rim may flip where the average sits on a threshold.
        #expect(mean < 0.25 && far < 0.001, "mean difference \(mean), \(far * 100)% of samples far off")
    }

    /// The mean difference of two pictures' samples, and the share of samples more than
    /// 24 levels apart.
    static func difference(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>) -> (mean: Double, far: Double) {
        var total = 0, far = 0
        for i in a.components.indices {
            let d = abs(Int(a.components[i]) - Int(b.components[i]))
            total += d
            if d > 24 { far += 1 }
        }
        return (Double(total) / Double(a.components.count), Double(far) / Double(a.components.count))
    }

    /// A still's comic is decided from the picture halved (its Y'CbCr planes averaged
    /// 2x2) and averaged the rest of the way in floating point: the same picture as the
    /// comic of the whole still, but for the halving's rounding to 8 bits and its own 2x2
    /// box, which softens the summary a little more (here 0.15% of samples flip a tone or
    /// a line's rim).
    @Test func aComicIsDrawnFromThePictureReduced() throws {
        let recipe = FilterRecipe(steps: [try FilterStep(name: "comic")])
        let (w, h) = (3000, 2200)
        let picture = ComicFilterTests.scene(width: w, height: h, noise: 4)
        let half = AreaAccumulator(width: w, height: h, shortSide: h / 2)
        half.add(picture, x: 0, y: 0)
        let halved = half.averagedPicture()
        #expect((halved.width, halved.height) == (w / 2, h / 2))
        let rendering = try #require(RegionRendering(recipe: recipe, width: w, height: h))
        rendering.summarize(reduced: halved)
        var drawn = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        rendering.draw(&drawn, x: 0, y: 0)
        let (mean, far) = Self.difference(recipe.apply(to: picture), drawn)
        #expect(mean < 0.25 && far < 0.003, "mean difference \(mean), \(far * 100)% of samples far off")
    }

    /// A comic alone is drawn straight into an encoder's Y'CbCr 4:2:0 planes: the pixels
    /// it draws as RGB, through the planes' matrix (a movie's BT.709, a HEIC's BT.601),
    /// each chroma sample from its 2x2 pixels' mean colour, at video levels or full range.
    /// Bands of rows start on even rows, so each chroma row is made from both its rows;
    /// the width is no multiple of a vector.
    @Test(arguments: [(false, YCbCrMatrix.bt709), (true, .bt709), (true, .bt601)])
    func aComicIsDrawnStraightIntoYCbCrPlanes(fullRange: Bool, matrix: YCbCrMatrix) throws {
        let (w, h) = (1502, 1098)
        let recipe = FilterRecipe(steps: [try FilterStep(name: "comic")])
        let picture = ComicFilterTests.scene(width: w, height: h, noise: 4)
        let average = AreaAccumulator(width: w, height: h, shortSide: ComicFilter.workingShortSide)
        average.add(picture, x: 0, y: 0)
        let averaged = average.averagedPicture()
        let rgb = try #require(RegionRendering(recipe: recipe, width: w, height: h))
        rgb.summarize(averaged: averaged)
        var drawn = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        rgb.draw(&drawn, x: 0, y: 0)
        let planes = try #require(RegionRendering(recipe: recipe, width: w, height: h))
        #expect(planes.drawsYCbCr)
        planes.summarize(averaged: averaged)
        // Strides wider than the rows, as an encoder's frames have them.
        let (lumaStride, chromaStride) = (w + 64, w / 2 + 32)
        var luma = [UInt8](repeating: 0, count: lumaStride * h), cb = [UInt8](repeating: 0, count: chromaStride * h / 2), cr = cb
        luma.withUnsafeMutableBufferPointer { y in
            cb.withUnsafeMutableBufferPointer { cb in
                cr.withUnsafeMutableBufferPointer { cr in
                    planes.draw(
                        into: YCbCr420Planes(
                            luma: y.baseAddress!, lumaStride: lumaStride, cb: cb.baseAddress!, cr: cr.baseAddress!, chromaStride: chromaStride,
                            width: w, height: h, fullRange: fullRange, matrix: matrix))
                }
            }
        }
        let (kr, kb) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
        let kg = 1 - kr - kb
        let (lumaScale, lumaOffset, chromaScale) = fullRange ? (1.0, 0.0, 1.0) : (219.0 / 255, 16.0, 224.0 / 255)
        func colour(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let i = (y * w + x) * 3
            return (Double(drawn.components[i]), Double(drawn.components[i + 1]), Double(drawn.components[i + 2]))
        }
        var worstLuma = 0.0, worstChroma = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let (r, g, b) = colour(x, y)
                worstLuma = max(worstLuma, abs((kr * r + kg * g + kb * b) * lumaScale + lumaOffset - Double(luma[y * lumaStride + x])))
            }
        }
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) {
                let four = [colour(2 * x, 2 * y), colour(2 * x + 1, 2 * y), colour(2 * x, 2 * y + 1), colour(2 * x + 1, 2 * y + 1)]
                let (r, g, b) = (four.map(\.0).reduce(0, +) / 4, four.map(\.1).reduce(0, +) / 4, four.map(\.2).reduce(0, +) / 4)
                let l = kr * r + kg * g + kb * b
                let expected = [(b - l) / (2 * (1 - kb)) * chromaScale + 128, (r - l) / (2 * (1 - kr)) * chromaScale + 128].map { min(255, max(0, $0)) }
                worstChroma = max(worstChroma, abs(expected[0] - Double(cb[y * chromaStride + x])), abs(expected[1] - Double(cr[y * chromaStride + x])))
            }
        }
        // The RGB drawing is itself rounded to bytes: half a level, then half again.
        #expect(worstLuma <= 1.01 && worstChroma <= 1.01, "luma off by \(worstLuma), chroma by \(worstChroma)")
    }

    /// Rows drawn together (a chroma row's two) are never split between bands.
    @Test(arguments: [(1098, 2), (1097, 2), (7, 2), (1, 2), (1000, 3), (1000, 1)])
    func bandsStartAtMultiplesOfTheRowsDrawnTogether(rows: Int, unit: Int) {
        let seen = Mutex<[Range<Int>]>([])
        forEachBand(rows: rows, startingAtMultiplesOf: unit) { band in seen.withLock { $0.append(band) } }
        let bands = seen.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(bands.allSatisfy { $0.lowerBound % unit == 0 }, "\(bands)")
        #expect(bands.flatMap { Array($0) } == Array(0..<rows), "every row once")
        if rows >= 8 * unit { #expect(bands.count > 1) }
    }

    @Test(arguments: ["comic,vignette", "mono,comic", "posterize", "vignette"])
    func onlyAComicAloneIsDrawnAsYCbCr(recipe text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: ",").map { try FilterStep(name: String($0)) })
        #expect(try #require(RegionRendering(recipe: recipe, width: 64, height: 64)).drawsYCbCr == false)
    }
}

/// Working planes read back at full size: twice the working width has a path of its own.
struct UpsampledRowsTests {
    /// The same values as the bilinear reading of any other size gives, for the whole
    /// width and for regions of it.
    @Test(arguments: [(37, 74), (960, 1920), (8, 16), (1, 2)])
    func twiceTheWidthReadsAsBilinearDoes(working: Int, full: Int) {
        var plane = FloatPlane(width: working, height: 2)
        for i in plane.values.indices { plane.values[i] = Float((i * 7919) % 256) }
        let rows = UpsampledRows([plane], width: full, height: 4)
        let sx = Double(working) / Double(full)
        for (x, columns) in [(0, full), (2, full - 2), (0, 2), (full - 2, 2), (2 * (working / 3), 2 * (working / 3))] where columns > 0 {
            var out = [Float](repeating: .nan, count: columns)
            out.withUnsafeMutableBufferPointer { rows.across(1, x: x, columns: columns, into: $0.baseAddress!) }
            for i in 0..<columns {
                let f = max(0, (Double(x + i) + 0.5) * sx - 0.5)
                let k = min(working - 1, Int(f)), t = f - Double(k)
                let a = Double(plane.values[working + k]), b = Double(plane.values[working + min(working - 1, k + 1)])
                #expect(abs(Double(out[i]) - (a + t * (b - a))) < 1e-3, "\(working) to \(full), column \(x + i)")
            }
        }
    }
}
