import Foundation
import Imaging
import Testing

@testable import Filters

/// Crop, rotate, flip and straighten, measured on pixels.
struct GeometryTests {
    static func step(_ text: String) throws -> FilterStep { try FilterStep(parsing: text) }

    static func apply(_ text: String, _ picture: PixelBuffer<UInt8>) throws -> PixelBuffer<UInt8> {
        try FilterRecipe(steps: text.split(separator: " ").map { try step(String($0)) }).apply(to: picture)
    }

    static func pixel(_ p: PixelBuffer<UInt8>, _ x: Int, _ y: Int) -> [UInt8] { (0..<3).map { p[x: x, y: y, channel: $0] } }

    @Test func aCropKeepsItsRectangleSampleForSample() throws {
        let picture = testPicture()  // 96x64
        let out = try Self.apply("crop:x=0.25,y=0.5,width=0.5,height=0.25", picture)
        #expect(out.width == 48 && out.height == 16)
        for (x, y) in [(0, 0), (47, 15), (20, 7)] { #expect(Self.pixel(out, x, y) == Self.pixel(picture, 24 + x, 32 + y)) }
        // The largest square, centred.
        let square = try Self.apply("crop:aspect=1:1", picture)
        #expect(square.width == 64 && square.height == 64 && Self.pixel(square, 0, 0) == Self.pixel(picture, 16, 0))
    }

    @Test func quarterTurnsAndFlipsMoveEverySampleWhereItBelongs() throws {
        let picture = testPicture()
        let turned = try Self.apply("rotate:degrees=90", picture)
        #expect(turned.width == 64 && turned.height == 96)
        // Clockwise: the top-left comes from the bottom-left; the top-right from the top-left.
        #expect(Self.pixel(turned, 0, 0) == Self.pixel(picture, 0, 63) && Self.pixel(turned, 63, 0) == Self.pixel(picture, 0, 0))
        #expect(try Self.apply("rotate:degrees=90 rotate:degrees=-90", picture) == picture)
        #expect(try Self.apply("rotate:degrees=180", picture) == (try Self.apply("flip:direction=horizontal flip:direction=vertical", picture)))
        let mirrored = try Self.apply("flip", picture)
        #expect(Self.pixel(mirrored, 0, 10) == Self.pixel(picture, 95, 10))
        #expect(try Self.apply("flip flip", picture) == picture)
        #expect(try Self.apply("rotate:degrees=270", picture) == (try Self.apply("rotate:degrees=-90", picture)))
    }

    /// A grid chart whose lines lean by `degrees` counter-clockwise: black lines every 40
    /// pixels on white.
    static func leaningGrid(width: Int, height: Int, degrees: Double) -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        let t = degrees * .pi / 180
        let (cx, cy) = (Double(width) / 2, Double(height) / 2)
        for y in 0..<height {
            for x in 0..<width {
                // The point turned clockwise by the lean: in the upright chart's coordinates.
                let (dx, dy) = (Double(x) + 0.5 - cx, Double(y) + 0.5 - cy)
                let (u, v) = (cos(t) * dx - sin(t) * dy, sin(t) * dx + cos(t) * dy)
                let onLine = abs(u.truncatingRemainder(dividingBy: 40)) < 1.5 || abs(v.truncatingRemainder(dividingBy: 40)) < 1.5
                for c in 0..<3 { p[x: x, y: y, channel: c] = onLine ? 0 : 255 }
            }
        }
        return p
    }

    @Test func straighteningLevelsLinesAndLeavesNoEmptyCorners() throws {
        let chart = Self.leaningGrid(width: 600, height: 400, degrees: 3)
        let out = try Self.apply("straighten:degrees=3", chart)
        let k = StraightenFilter.scale(width: 600, height: 400, radians: 3 * .pi / 180)
        #expect(abs(Double(out.width) - 600 * k) <= 3 && abs(Double(out.height) - 400 * k) <= 3)
        // Every horizontal line's darkest row is the same across the picture: follow the
        // line through the middle from the left edge to the right.
        let middle = out.height / 2
        var darkest: [Int] = []
        for x in stride(from: 2, to: out.width - 2, by: 7) {
            let window = Array((middle - 25)...(middle + 25))
            let value = { (y: Int) in Int(out[x: x, y: y, channel: 0]) }
            // A column on a vertical line is dark all the way: it says nothing of the horizontal one.
            guard window.filter({ value($0) < 128 }).count <= 6 else { continue }
            darkest.append(window.min { value($0) < value($1) }!)
        }
        #expect(darkest.count > 50)
        #expect(darkest.max()! - darkest.min()! <= 1, "the line wanders over rows \(darkest.min()!)...\(darkest.max()!)")
        // No empty corner: each corner region is chart (white and black lines), never the
        // black of a point outside the photo. A white picture stays white everywhere.
        var white = PixelBuffer<UInt8>(width: 600, height: 400, channels: 3)
        for i in white.components.indices { white.components[i] = 255 }
        for degrees in [-45.0, -12, 3, 30] {
            let levelled = try Self.apply("straighten:degrees=\(degrees)", white)
            #expect(levelled.components.allSatisfy { $0 == 255 }, "straighten \(degrees) left an empty corner")
        }
    }

    /// A depth map or matte of another resolution reshaped by the same recipe still lines
    /// up with the photo: their edges land at the same fraction of the width and height.
    @Test(arguments: ["crop:x=0.1,y=0.2,width=0.7,height=0.6", "rotate:degrees=90 crop:aspect=4:3", "straighten:degrees=-7 flip", "crop:aspect=16:9 straighten:degrees=4"])
    func aSmallerMapFollowsThePhotosGeometry(_ text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
        // A bright disc off centre, in a 1600x1200 photo and in its 400x300 map.
        func disc(_ w: Int, _ h: Int) -> PixelBuffer<UInt8> {
            var p = PixelBuffer<UInt8>(width: w, height: h, channels: 1)
            for y in 0..<h {
                for x in 0..<w {
                    let (u, v) = ((Double(x) + 0.5) / Double(w) - 0.55, (Double(y) + 0.5) / Double(h) - 0.45)
                    p[x: x, y: y, channel: 0] = u * u + v * v < 0.03 ? 255 : 0
                }
            }
            return p
        }
        let photo = recipe.geometry(width: 1600, height: 1200).apply(to: disc(1600, 1200))
        let map = recipe.geometry(width: 400, height: 300).apply(to: disc(400, 300))
        #expect(abs(Double(photo.width) / Double(photo.height) - Double(map.width) / Double(map.height)) < 0.02)
        // The disc's centre of mass, as fractions of each picture.
        func centre(_ p: PixelBuffer<UInt8>) -> (Double, Double) {
            var (sx, sy, n) = (0.0, 0.0, 0.0)
            for y in 0..<p.height { for x in 0..<p.width where p[x: x, y: y, channel: 0] > 127 { (sx, sy, n) = (sx + Double(x) + 0.5, sy + Double(y) + 0.5, n + 1) } }
            return (sx / n / Double(p.width), sy / n / Double(p.height))
        }
        let (a, b) = (centre(photo), centre(map))
        #expect(abs(a.0 - b.0) < 0.005 && abs(a.1 - b.1) < 0.005, "photo \(a), map \(b)")
    }

    /// Reshaped over its own storage a band of rows at a time, a picture gets the samples a
    /// new buffer gets, in the same storage (no second copy of a large photo): each band is
    /// written only once no band still to be drawn reads its place, and a crop moves rows.
    /// Bands of 16 rows here, so every recipe takes many.
    @Test(arguments: [
        "crop:x=0.1,y=0.2,width=0.7,height=0.6", "crop:x=0,y=0,width=1,height=0.5", "crop:x=0.3,y=0,width=0.7,height=1", "straighten:degrees=3",
        "straighten:degrees=-11", "rotate:degrees=90", "rotate:degrees=180", "flip:direction=vertical", "crop:aspect=16:9 straighten:degrees=4 flip",
        "rotate:degrees=270 crop:x=0.1,y=0.2,width=0.5,height=0.7", "crop:aspect=1:1 rotate:degrees=90 flip:direction=horizontal",
        "flip:direction=vertical rotate:degrees=90", "rotate:degrees=180 crop:x=0.25,y=0,width=0.5,height=1",
    ])
    func aPictureReshapedInItsOwnStorageGetsTheSamplesOfANewOne(_ text: String) throws {
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
        func address<T>(_ p: borrowing PixelBuffer<T>) -> UInt { p.components.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        for (width, height, channels) in [(120, 330, 3), (331, 97, 1), (64, 200, 4)] {
            let picture = testPicture(width: width, height: height)
            var eight = PixelBuffer<UInt8>(width: width, height: height, channels: channels)
            for i in 0..<(width * height) {
                for c in 0..<channels { eight.components[i * channels + c] = picture.components[i * 3 + c % 3] &+ UInt8(c / 3 * 40) }
            }
            let sixteen = PixelBuffer<UInt16>(width: width, height: height, channels: channels, components: eight.components.map { UInt16($0) * 257 &+ 3 })
            let placement = recipe.geometry(width: width, height: height)
            let expected = placement.apply(to: eight), expectedSixteen = placement.apply(to: sixteen)
            var copy = eight
            copy.components[0] &+= 0  // its own storage, not the one `eight` shares
            let before = address(copy)
            let reshaped = placement.apply(reusing: consume copy, bandBytes: 1)
            let same = reshaped == expected  // (not printed whole when it fails)
            #expect(same, "\(text), \(width)x\(height)x\(channels), 8 bits")
            #expect(address(reshaped) == before, "\(text): the 8-bit picture was copied")
            var copySixteen = sixteen
            copySixteen.components[0] &+= 0
            let beforeSixteen = address(copySixteen)
            let reshapedSixteen = placement.apply(reusing: consume copySixteen, bandBytes: 1)
            let sameSixteen = reshapedSixteen == expectedSixteen
            #expect(sameSixteen, "\(text), \(width)x\(height)x\(channels), 16 bits")
            #expect(address(reshapedSixteen) == beforeSixteen, "\(text): the 16-bit picture was copied")
        }
    }

    /// A picture already reshaped in its own storage (a crop leaves the storage longer than
    /// the samples) is reshaped there again with the samples new buffers get, as when one
    /// geometry step follows comic and another follows shadows. Bands of 16 rows.
    @Test(arguments: [
        ("crop:x=0.1,y=0.2,width=0.7,height=0.6", "straighten:degrees=3"), ("straighten:degrees=-5", "crop:x=0.2,y=0,width=0.5,height=0.9"),
        ("rotate:degrees=90", "crop:aspect=1:1"), ("crop:x=0,y=0.3,width=1,height=0.5", "rotate:degrees=270"),
        ("crop:x=0.3,y=0.1,width=0.6,height=0.6", "crop:x=0.1,y=0.2,width=0.5,height=0.5"),
    ])
    func aPictureReshapedInItsOwnStorageIsReshapedThereAgain(first: String, then second: String) throws {
        func placement(_ text: String, _ width: Int, _ height: Int) throws -> GeometryPlacement {
            FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) }).geometry(width: width, height: height)
        }
        for (width, height, channels) in [(120, 330, 3), (331, 97, 1)] {
            let picture = testPicture(width: width, height: height)
            var eight = PixelBuffer<UInt8>(width: width, height: height, channels: channels)
            for i in 0..<(width * height) {
                for c in 0..<channels { eight.components[i * channels + c] = picture.components[i * 3 + c] }
            }
            let sixteen = PixelBuffer<UInt16>(width: width, height: height, channels: channels, components: eight.components.map { UInt16($0) * 257 &+ 3 })
            let p1 = try placement(first, width, height)
            let (once, onceSixteen) = (p1.apply(to: eight), p1.apply(to: sixteen))
            let p2 = try placement(second, once.width, once.height)
            let (expected, expectedSixteen) = (p2.apply(to: once), p2.apply(to: onceSixteen))
            var copy = eight
            copy.components[0] &+= 0  // its own storage, not the one `eight` shares
            let twice = p2.apply(reusing: p1.apply(reusing: consume copy, bandBytes: 1), bandBytes: 1)
            let same = twice == expected  // (not printed whole when it fails)
            #expect(same, "\(first), then \(second), \(width)x\(height)x\(channels), 8 bits")
            var copySixteen = sixteen
            copySixteen.components[0] &+= 0
            let twiceSixteen = p2.apply(reusing: p1.apply(reusing: consume copySixteen, bandBytes: 1), bandBytes: 1)
            let sameSixteen = twiceSixteen == expectedSixteen
            #expect(sameSixteen, "\(first), then \(second), \(width)x\(height)x\(channels), 16 bits")
        }
    }

    /// Turns, mirrors and crops, one after another, only move samples: they are made in
    /// the picture's storage by reorienting it and cutting out a rectangle, with no band
    /// drawn (a quarter turn drawn in bands holds a second copy of the picture to the end).
    @Test func turnsMirrorsAndCropsAreCutWithoutDrawing() throws {
        for text in [
            "rotate:degrees=90", "rotate:degrees=270 crop:x=0.1,y=0.2,width=0.5,height=0.7", "crop:aspect=1:1 rotate:degrees=90 flip:direction=horizontal",
            "flip:direction=vertical rotate:degrees=90", "rotate:degrees=180", "crop:x=0.1,y=0.2,width=0.7,height=0.6",
        ] {
            let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
            for (width, height) in [(4032, 3024), (331, 97)] {
                let placement = recipe.geometry(width: width, height: height)
                let cut = placement.cut(ofWidth: width, height: height)
                #expect(cut != nil, "\(text) on \(width)x\(height) is drawn, not cut")
            }
        }
        let turned = FilterRecipe(steps: [try Self.step("rotate:degrees=90")]).geometry(width: 400, height: 300).cut(ofWidth: 400, height: 300)
        #expect(turned.map { "\($0.orientation) at \($0.x),\($0.y)" } == "rotate90CW at 0,0")
        let straightened = FilterRecipe(steps: [try Self.step("straighten:degrees=3")]).geometry(width: 400, height: 300)
        #expect(straightened.cut(ofWidth: 400, height: 300) == nil)
    }

    /// The placement of an orientation moves every sample as `applying` does.
    @Test(arguments: EXIFOrientation.allCases)
    func anOrientationsPlacementIsItsTurn(_ orientation: EXIFOrientation) {
        let picture = testPicture(width: 90, height: 64)
        #expect(GeometryPlacement.orienting(orientation, width: 90, height: 64).apply(to: picture) == picture.applying(orientation))
    }

    /// Geometry on a picture as stored is folded into its orientation, one resampling from
    /// stored to stored: the same samples as turning it upright, filtering and turning it
    /// back (exactly for crops, turns and flips; a straighten within a level, its
    /// interpolation weights stepped along the stored rows).
    @Test(arguments: EXIFOrientation.allCases)
    func geometryOnAStoredPictureIsFoldedIntoItsOrientation(_ orientation: EXIFOrientation) throws {
        let stored = testPicture(width: 90, height: 64)
        for text in ["exposure:ev=0.4 crop:x=0.1,y=0.2,width=0.6,height=0.7 rotate:degrees=90 saturation:amount=0.3 flip", "crop:aspect=1:1 straighten:degrees=3 mono"] {
            let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
            let folded = recipe.apply(toStored: stored, shownIn: orientation)
            let turned = recipe.apply(to: stored.applying(orientation)).applying(orientation.inverse)
            #expect(folded.width == turned.width && folded.height == turned.height, "\(text) in \(orientation)")
            guard folded.width == turned.width, folded.height == turned.height else { continue }
            let worst = zip(folded.components, turned.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= (text.contains("straighten") ? 1 : 0), "\(text) in \(orientation): \(worst)")
        }
    }

    /// Crops, turns and flips first, in any orientation, are a rectangle of the stored
    /// picture shown another way: the rectangle's samples, filtered by the steps after it
    /// and shown in its orientation, are the recipe's render. A straighten, or a step with
    /// a direction before or between them, is not.
    @Test(arguments: EXIFOrientation.allCases)
    func leadingGeometryIsARectangleOfTheStoredPicture(_ orientation: EXIFOrientation) throws {
        let stored = testPicture(width: 90, height: 64)
        for text in [
            "crop:x=0.1,y=0.2,width=0.6,height=0.7 exposure:ev=0.4 vignette", "crop:aspect=1:1 flip flip", "crop:x=0.3,y=0,width=0.5,height=1",
            "rotate:degrees=90 crop:aspect=4:3", "flip:direction=vertical", "crop:x=0.2,y=0.1,width=0.5,height=0.8 rotate:degrees=270 flip mono",
            // Steps that look at one pixel at a time may come before.
            "exposure:ev=1 crop:aspect=1:1", "mono warmth:amount=0.2 saturation:amount=0.3 rotate:degrees=90 crop:aspect=4:3 sepia",
        ] {
            let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
            let cut = try #require(recipe.storedCrop(width: 90, height: 64, shownIn: orientation), "\(text) in \(orientation)")
            #expect((cut.orientation == orientation) == !(text.contains("rotate") || text.hasPrefix("flip")), "\(text) in \(orientation)")
            var rectangle = PixelBuffer<UInt8>(width: cut.width, height: cut.height, channels: 3)
            for y in 0..<cut.height {
                for x in 0..<cut.width { for c in 0..<3 { rectangle[x: x, y: y, channel: c] = stored[x: cut.x + x, y: cut.y + y, channel: c] } }
            }
            let shown = cut.rest.apply(to: rectangle).applying(cut.orientation)
            #expect(shown == recipe.apply(to: stored.applying(orientation)), "\(text) in \(orientation)")
        }
        for text in [
            "crop:aspect=1:1 straighten:degrees=2", "crop:aspect=4:3 exposure:ev=1 crop:aspect=1:1", "crop:aspect=1:1 depth:aperture=2.8,x=0.5,y=0.5",
            // Steps that look at a pixel's surroundings or its place in the frame give other pixels after a crop.
            "vignette crop:aspect=1:1", "exposure:ev=1 shadows:amount=0.3 crop:aspect=1:1", "comic rotate:degrees=90", "exposure:ev=1",
        ] {
            let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try Self.step(String($0)) })
            #expect(recipe.storedCrop(width: 90, height: 64, shownIn: orientation) == nil, "\(text) in \(orientation)")
        }
    }

    @Test func geometryIsWrittenAndStoredAsItWasTyped() throws {
        #expect(try Self.step("crop:aspect=4:3").description == "crop:aspect=4:3,height=1,width=1,x=0,y=0")
        #expect(try Self.step("crop:aspect=1.5").parameters["aspect"] == 1.5)
        let flip = try Self.step("flip:direction=vertical")
        #expect(flip.description == "flip:direction=vertical")
        let json = String(decoding: try JSONEncoder().encode(flip), as: UTF8.self)
        #expect(json.contains("\"vertical\""))
        #expect(try JSONDecoder().decode(FilterStep.self, from: Data(json.utf8)) == flip)
        for (bad, words) in [
            ("rotate:degrees=45", "multiple of 90"), ("crop:x=0.5,width=0.8", "right edge"), ("flip:direction=sideways", "horizontal, vertical"),
            ("crop:aspect=4:0", "ratio"), ("straighten:degrees=50", "outside"),
        ] {
            #expect(throws: FilterError.self, "\(bad)") { try Self.step(bad) }
            do { _ = try Self.step(bad) } catch { #expect("\(error)".contains(words), "\(bad): \(error)") }
        }
    }
}
