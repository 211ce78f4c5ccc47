import CRowLoops
import Foundation
import Imaging
import Testing

@testable import Filters

/// The comic look, measured on a synthetic scene: shapes on a gradient, as a camera sees
/// them (optionally with sensor noise), and moved sideways for a panning movie.
struct ComicFilterTests {
    /// A sky-like vertical gradient with a light orange disc and a green rectangle; the
    /// content is moved `shift` pixels right; `noise` adds ± that many levels, differing
    /// per `seed`.
    static func scene(width: Int, height: Int, shift: Int = 0, noise: Int = 0, seed: UInt64 = 1) -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        let short = Double(min(width, height))
        let (cx, cy, radius) = (0.35 * Double(width) + Double(shift), 0.5 * Double(height), 0.22 * short)
        let (left, right) = (0.6 * Double(width) + Double(shift), 0.85 * Double(width) + Double(shift))
        let (top, bottom) = (0.25 * Double(height), 0.75 * Double(height))
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        for y in 0..<height {
            let t = Double(y) / Double(height)
            for x in 0..<width {
                let (fx, fy) = (Double(x) + 0.5, Double(y) + 0.5)
                var c: (Double, Double, Double) = (90 + 80 * t, 140 + 60 * t, 200 + 30 * t)
                if (fx - cx) * (fx - cx) + (fy - cy) * (fy - cy) < radius * radius { c = (225, 160, 95) }
                if fx >= left && fx < right && fy >= top && fy < bottom { c = (95, 170, 105) }
                for (channel, value) in [c.0, c.1, c.2].enumerated() {
                    var v = value
                    if noise > 0 {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        v += Double(Int((state >> 33) % UInt64(2 * noise + 1)) - noise)
                    }
                    p[x: x, y: y, channel: channel] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return p
    }

    /// Ink: all three channels near black (a halftone dot only darkens a fill by a third).
    static func isInk(_ p: PixelBuffer<UInt8>, _ x: Int, _ y: Int) -> Bool {
        (0..<3).allSatisfy { p[x: x, y: y, channel: $0] <= 60 }
    }

    @Test func outlinesCloseAroundTheShapesAndStayOffFlatAreas() throws {
        let (w, h) = (960, 720)
        let out = try FilterStep(parsing: "comic").apply(to: Self.scene(width: w, height: h))
        let lineWidth = 4.0 / 1000 * Double(h)
        let reach = Int(lineWidth.rounded(.up))
        // Every degree around the disc, ink within a line width of its edge: a closed line.
        let (cx, cy, radius) = (0.35 * Double(w), 0.5 * Double(h), 0.22 * Double(h))
        var missing: [Int] = []
        for degrees in 0..<360 {
            let a = Double(degrees) * .pi / 180
            let (x, y) = (Int(cx + radius * cos(a)), Int(cy + radius * sin(a)))
            let inked = (-reach...reach).contains { dy in (-reach...reach).contains { dx in Self.isInk(out, x + dx, y + dy) } }
            if !inked { missing.append(degrees) }
        }
        #expect(missing.isEmpty, "no outline at \(missing)°")
        // The rectangle's four sides, every 8 pixels.
        let (left, right, top, bottom) = (Int(0.6 * Double(w)), Int(0.85 * Double(w)), Int(0.25 * Double(h)), Int(0.75 * Double(h)))
        for y in stride(from: top + 8, to: bottom - 8, by: 8) {
            #expect((-reach...reach).contains { Self.isInk(out, left + $0, y) }, "left side at y \(y)")
            #expect((-reach...reach).contains { Self.isInk(out, right + $0, y) }, "right side at y \(y)")
        }
        for x in stride(from: left + 8, to: right - 8, by: 8) {
            #expect((-reach...reach).contains { Self.isInk(out, x, top + $0) }, "top side at x \(x)")
            #expect((-reach...reach).contains { Self.isInk(out, x, bottom + $0) }, "bottom side at x \(x)")
        }
        // No ink inside the flat shapes or on the open sky, away from the edges.
        var stray = 0
        for y in stride(from: 0, to: h, by: 2) {
            for x in stride(from: 0, to: w, by: 2) {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                let nearDisc = abs(d - radius) < 4 * lineWidth
                let nearRectangle =
                    (Double(left) - 4 * lineWidth...Double(right) + 4 * lineWidth).contains(Double(x))
                    && (Double(top) - 4 * lineWidth...Double(bottom) + 4 * lineWidth).contains(Double(y))
                    && !((Double(left) + 4 * lineWidth...Double(right) - 4 * lineWidth).contains(Double(x))
                        && (Double(top) + 4 * lineWidth...Double(bottom) - 4 * lineWidth).contains(Double(y)))
                if !nearDisc && !nearRectangle && Self.isInk(out, x, y) { stray += 1 }
            }
        }
        #expect(stray == 0, "\(stray) ink pixels away from every edge")
    }

    /// The fill's tones, worked out in vector registers (`CRowLoops`), are the
    /// posterised luma as defined: Rec. 709 luma, rounded to a whole 0 ... 255, the
    /// nearest of `levels` levels, lifted so that the darkest is 12% gray.
    @Test func theFillsTonesAreTheLumaPosterised() {
        // Grays from below black to above white, and colours; a count that is no
        // multiple of a vector.
        let gray = (-20...2570).map { Float($0) / 10 }
        let (r, g, b) = (gray + [255, 0, 0, 40.5], gray + [0, 255, 0, 90.25], gray + [0, 0, 255, 200])
        for levels in [2, 3, 5, 8, 17, 32] {
            let steps = Double(levels - 1)
            var l = [Float](repeating: .nan, count: r.count), tone = l
            camlib_comic_tones(r, g, b, r.count, Float(steps), &l, &tone)
            for i in r.indices {
                let luma = 0.2126 * Double(r[i]) + 0.7152 * Double(g[i]) + 0.0722 * Double(b[i])
                #expect(abs(Double(l[i]) - luma) < 0.001, "luma \(l[i]), not \(luma)")
                let whole = min(255, max(0, Double(l[i]).rounded(.toNearestOrEven)))
                let expected = (0.12 + 0.88 * (whole / 255 * steps).rounded() / steps) * 255
                #expect(abs(Double(tone[i]) - expected) < 0.001, "levels \(levels), luma \(l[i]): \(tone[i]), not \(expected)")
            }
        }
    }

    @Test func flatRegionsCarryHalftoneDots() throws {
        let (w, h) = (960, 720)
        let out = try FilterStep(parsing: "comic").apply(to: Self.scene(width: w, height: h))
        // Inside the green rectangle (mid-dark), well away from its sides: the fill and
        // dots a third darker, in a regular pattern.
        var values: [Int] = []
        for y in Int(0.35 * Double(h))..<Int(0.65 * Double(h)) {
            for x in Int(0.65 * Double(w))..<Int(0.8 * Double(w)) { values.append(Int(out[x: x, y: y, channel: 1])) }
        }
        let lightest = values.max()!
        let dotted = Double(values.filter { $0 < lightest * 85 / 100 }.count) / Double(values.count)
        #expect(dotted > 0.05 && dotted < 0.6, "\(dotted) of the flat region is dotted")
    }

    @Test func dotsCoverWhatTheirCellIsDark() throws {
        // Dot area ∝ darkness beyond the lightest 20%: 0.62²·π·(d − 0.2)/0.8 of a cell,
        // while the dot fits in its cell (gray 71 and lighter). A 12-pixel cell on a
        // 160-pixel short side: dot = 75 thousandths.
        let step = try FilterStep(parsing: "comic:dot=75,edges=1,ink=0.5")
        for level: UInt8 in [80, 100, 160, 190] {
            var gray = PixelBuffer<UInt8>(width: 240, height: 160, channels: 3)
            for i in gray.components.indices { gray.components[i] = level }
            let out = step.apply(to: gray)
            let fill = Double(out.components.max()!)
            let mean = Double(out.components.reduce(0) { $0 + Int($1) }) / Double(out.components.count)
            let covered = (fill - mean) / (fill * 0.5)
            let darkness = 1 - Double(level) / 255
            let expected = 0.62 * 0.62 * Double.pi * max(0, darkness - 0.2) / 0.8
            #expect(abs(covered - expected) < 0.03, "gray \(level): \(covered) covered, \(expected) expected")
        }
        // The lightest tones stay paper.
        var light = PixelBuffer<UInt8>(width: 240, height: 160, channels: 3)
        for i in light.components.indices { light.components[i] = 215 }
        #expect(Set(step.apply(to: light).components).count == 1)
    }

    @Test func aBiggerPictureGetsTheSameLookScaled() throws {
        // A movie frame and its still: the same scene at 960x720 and 2880x2160.
        let comic = try FilterStep(parsing: "comic")
        let small = comic.apply(to: Self.scene(width: 960, height: 720))
        let big = comic.apply(to: Self.scene(width: 2880, height: 2160))
        // Seen from afar (8x8 blocks of the frame, 24x24 of the still), they look alike.
        var difference = 0.0
        for by in 0..<90 {
            for bx in 0..<120 {
                for c in 0..<3 {
                    var s = 0, b = 0
                    for y in 0..<8 { for x in 0..<8 { s += Int(small[x: bx * 8 + x, y: by * 8 + y, channel: c]) } }
                    for y in 0..<24 { for x in 0..<24 { b += Int(big[x: bx * 24 + x, y: by * 24 + y, channel: c]) } }
                    difference += abs(Double(s) / 64 - Double(b) / 576)
                }
            }
        }
        let mean = difference / Double(120 * 90 * 3)
        #expect(mean < 4, "the still differs from the frame by \(mean) levels on average")
        // The lines are three times as wide in the still: ink pixels across the rectangle's
        // left side at mid-height, counting a rim pixel by how dark it is (without dots).
        func lineWidth(_ p: PixelBuffer<UInt8>) -> Double {
            let y = p.height / 2, x = Int(0.6 * Double(p.width))
            return ((x - p.width / 40)..<(x + p.width / 40)).reduce(0) { sum, x in
                let v = Double((0..<3).map { Int(p[x: x, y: y, channel: $0]) }.max()!)
                return sum + max(0, min(1, (150 - v) / (150 - 24)))
            }
        }
        let lines = try FilterStep(parsing: "comic:ink=0")
        let (a, b) = (lineWidth(lines.apply(to: Self.scene(width: 960, height: 720))), lineWidth(lines.apply(to: Self.scene(width: 2880, height: 2160))))
        #expect(a >= 2 && b / a > 2.5 && b / a < 3.5, "lines \(a) and \(b) pixels wide")
    }

    @Test func aPanningNoisyMovieDoesNotShimmer() throws {
        let comic = try FilterStep(parsing: "comic")
        let frame = Self.scene(width: 640, height: 480, noise: 6, seed: 1)
        #expect(comic.apply(to: frame) == comic.apply(to: frame))
        // The next frame: the shapes moved a pixel, new sensor noise. On the open sky,
        // where the scene did not change, the dots stay put: hardly a pixel changes.
        let a = comic.apply(to: frame)
        let b = comic.apply(to: Self.scene(width: 640, height: 480, shift: 1, noise: 6, seed: 2))
        var changed = 0, total = 0
        for y in 10..<(480 / 5) {
            for x in 10..<630 {
                total += 1
                if (0..<3).contains(where: { abs(Int(a[x: x, y: y, channel: $0]) - Int(b[x: x, y: y, channel: $0])) > 12 }) { changed += 1 }
            }
        }
        #expect(Double(changed) / Double(total) < 0.01, "\(changed) of \(total) sky pixels changed")
    }
}

@Test func posterizeKeepsASmoothSkysBandsWhole() throws {
    // A slow gradient with sensor noise: each band one region, not speckles.
    let (w, h) = (2400, 1500)
    var sky = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
    var state: UInt64 = 7
    for y in 0..<h {
        for x in 0..<w {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int((state >> 33) % 7) - 3
            let v = UInt8(100 + x * 120 / w + noise)
            for c in 0..<3 { sky[x: x, y: y, channel: c] = v }
        }
    }
    let out = try FilterStep(parsing: "posterize:levels=6").apply(to: sky)
    // Regions of one tone (4-connected) in the red channel: 100 ... 220 crosses two steps.
    var label = [Int](repeating: -1, count: w * h)
    var regions = 0
    for start in 0..<(w * h) where label[start] < 0 {
        let tone = out.components[start * 3]
        var stack = [start]
        label[start] = regions
        while let i = stack.popLast() {
            let (x, y) = (i % w, i / w)
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < w && ny >= 0 && ny < h {
                let j = ny * w + nx
                if label[j] < 0 && out.components[j * 3] == tone {
                    label[j] = regions
                    stack.append(j)
                }
            }
        }
        regions += 1
    }
    // The three bands, and at most a few specks where a band border wavers.
    var sizes = [Int](repeating: 0, count: regions)
    for l in label { sizes[l] += 1 }
    let specks = sizes.sorted(by: >).dropFirst(3).reduce(0, +)
    #expect(regions >= 3 && specks < w * h / 1000, "\(regions) regions, \(specks) pixels in specks")
    // Real detail stays crisp: a hard step is posterised where it is.
    var step = PixelBuffer<UInt8>(width: 64, height: 8, channels: 3)
    for y in 0..<8 { for x in 32..<64 { for c in 0..<3 { step[x: x, y: y, channel: c] = 255 } } }
    let stepped = try FilterStep(parsing: "posterize").apply(to: step)
    #expect(stepped[x: 31, y: 4, channel: 0] == 0 && stepped[x: 32, y: 4, channel: 0] == 255)
}

/// Renders skip turning a stored picture upright when every filter of the recipe treats
/// every direction alike: for each filter that says so, filtering the stored picture and
/// then showing it upright must look as filtering the upright picture does, in all eight
/// orientations. Pixel by pixel filters must give the same bytes; filters with a dot
/// screen (whose phase moves) must look alike seen from afar (8x8 blocks) and differ in
/// few pixels beyond the dots' rims.
@Test(arguments: FilterCatalog.all.filter { $0.treatsEveryDirectionAlike }.map { $0.name })
func aFilterThatTreatsEveryDirectionAlikeLooksTheSameOnAStoredPicture(name: String) throws {
    let recipe = FilterRecipe(steps: [try FilterStep(name: name)])
    #expect(recipe.treatsEveryDirectionAlike)
    let upright = ComicFilterTests.scene(width: 480, height: 360, noise: 3)
    let expected = recipe.apply(to: upright)
    for orientation in EXIFOrientation.allCases where orientation != .up {
        // The picture as a camera would have stored it to be shown upright in `orientation`.
        let stored = upright.applying(orientation.inverse)
        let shown = recipe.apply(toStored: stored, shownIn: orientation).applying(orientation)
        #expect(shown.width == expected.width && shown.height == expected.height)
        if ["mono", "noir", "sepia", "vignette"].contains(name) {
            #expect(shown == expected, "\(name) in \(orientation)")
            continue
        }
        var difference = 0.0
        for by in 0..<(360 / 8) {
            for bx in 0..<(480 / 8) {
                for c in 0..<3 {
                    var a = 0, b = 0
                    for y in 0..<8 {
                        for x in 0..<8 {
                            a += Int(shown[x: bx * 8 + x, y: by * 8 + y, channel: c])
                            b += Int(expected[x: bx * 8 + x, y: by * 8 + y, channel: c])
                        }
                    }
                    difference += abs(Double(a - b)) / 64
                }
            }
        }
        let mean = difference / Double(60 * 45 * 3)
        #expect(mean < 3, "\(name) in \(orientation): \(mean) levels apart on average, seen from afar")
    }
}
