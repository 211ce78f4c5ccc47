import Foundation
import Imaging
import Testing

@testable import Filters

/// The depth step on a synthetic scene: a textured red disc near the camera (the
/// subject, on its matte) in front of a gray checkerboard far away.
struct DepthFilterTests {
    static let (width, height) = (480, 360)
    static let centre = (x: 240.0, y: 200.0), discRadius = 90.0

    static func distance(_ x: Int, _ y: Int) -> Double {
        ((Double(x) + 0.5 - centre.x) * (Double(x) + 0.5 - centre.x) + (Double(y) + 0.5 - centre.y) * (Double(y) + 0.5 - centre.y)).squareRoot()
    }

    /// The scene: the disc striped in two reds every 3 pixels, the background a checker of 6-pixel grays.
    static func scene() -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 3
                if distance(x, y) < discRadius {
                    let light = (x / 3) % 2 == 0
                    (p.components[o], p.components[o + 1], p.components[o + 2]) = light ? (210, 70, 60) : (120, 30, 30)
                } else {
                    let v: UInt8 = ((x / 6) + (y / 6)) % 2 == 0 ? 70 : 190
                    (p.components[o], p.components[o + 1], p.components[o + 2]) = (v, v, v)
                }
            }
        }
        return p
    }

    /// Nearness 1 on the disc and 0 behind it, at a quarter of the picture's size (as a
    /// phone's depth map is), and the matte at half.
    static func field(matte: Bool = true) -> DepthField {
        func plane(_ w: Int, _ h: Int) -> PixelBuffer<Float> {
            var p = PixelBuffer<Float>(width: w, height: h, channels: 1)
            let scale = Double(width) / Double(w)
            for y in 0..<h {
                for x in 0..<w {
                    let px = (Double(x) + 0.5) * scale, py = (Double(y) + 0.5) * scale
                    let d = ((px - centre.x) * (px - centre.x) + (py - centre.y) * (py - centre.y)).squareRoot()
                    p.components[y * w + x] = d < discRadius ? 1 : 0
                }
            }
            return p
        }
        return DepthField(nearness: plane(width / 4, height / 4), matte: matte ? plane(width / 2, height / 2) : nil)
    }

    /// Mean difference between horizontal neighbours where both are in `region`.
    static func contrast(_ p: PixelBuffer<UInt8>, _ region: (Int, Int) -> Bool) -> Double {
        var (sum, n) = (0.0, 0)
        for y in 0..<p.height {
            for x in 0..<(p.width - 1) where region(x, y) && region(x + 1, y) {
                for c in 0..<3 { sum += abs(Double(p[x: x + 1, y: y, channel: c]) - Double(p[x: x, y: y, channel: c])) }
                n += 3
            }
        }
        return sum / Double(max(1, n))
    }

    static func meanDifference(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>, _ region: (Int, Int) -> Bool) -> Double {
        var (sum, n) = (0.0, 0)
        for y in 0..<a.height {
            for x in 0..<a.width where region(x, y) {
                for c in 0..<3 { sum += abs(Double(a[x: x, y: y, channel: c]) - Double(b[x: x, y: y, channel: c])) }
                n += 3
            }
        }
        return sum / Double(max(1, n))
    }

    static func depth(_ parameters: String) throws -> FilterRecipe {
        FilterRecipe(steps: [try FilterStep(parsing: "depth:" + parameters)])
    }

    static let focusOnDisc = "x=0.5,y=0.555"
    static func background(_ x: Int, _ y: Int) -> Bool { distance(x, y) > 130 }
    static func subject(_ x: Int, _ y: Int) -> Bool { distance(x, y) < 80 }

    @Test func theBackgroundIsBlurredAndTheSubjectKept() throws {
        let original = Self.scene()
        let rendered = try Self.depth("aperture=2.8," + Self.focusOnDisc).apply(to: original, depth: Self.field())
        let before = Self.contrast(original, Self.background), after = Self.contrast(rendered, Self.background)
        #expect(after < before / 2, "background contrast \(before) → \(after)")
        let subjectBefore = Self.contrast(original, Self.subject), subjectAfter = Self.contrast(rendered, Self.subject)
        #expect(abs(subjectAfter - subjectBefore) <= subjectBefore * 0.03, "subject contrast \(subjectBefore) → \(subjectAfter)")
        #expect(Self.meanDifference(original, rendered, Self.subject) < 1)
    }

    @Test func theMattesEdgeStaysSharpAndTheSubjectDoesNotBleedIntoTheBackground() throws {
        let original = Self.scene()
        let rendered = try Self.depth("aperture=1.4," + Self.focusOnDisc).apply(to: original, depth: Self.field())
        // Just inside the edge: as it was.
        let inside = { (x: Int, y: Int) in (Self.discRadius - 4..<Self.discRadius - 1).contains(Self.distance(x, y)) }
        #expect(Self.meanDifference(original, rendered, inside) < 2)
        // Just outside: the gray background blurred, without the disc's red spilling over it.
        var redness = 0.0, n = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width where (Self.discRadius + 3..<Self.discRadius + 12).contains(Self.distance(x, y)) {
                redness += Double(rendered[x: x, y: y, channel: 0]) - Double(rendered[x: x, y: y, channel: 1])
                n += 1
            }
        }
        #expect(redness / Double(n) < 6, "red over the background beside the disc: \(redness / Double(n))")
        #expect(Self.contrast(rendered, Self.background) < Self.contrast(original, Self.background) / 3)
    }

    @Test func aWiderApertureBlursMore() throws {
        let original = Self.scene()
        let field = Self.field()
        let contrasts = try [1.4, 2.8, 8, 16].map { f in
            Self.contrast(try Self.depth("aperture=\(f)," + Self.focusOnDisc).apply(to: original, depth: field), Self.background)
        }
        #expect(contrasts == contrasts.sorted() && Set(contrasts).count == 4, "\(contrasts)")
        #expect(contrasts[3] < Self.contrast(original, Self.background), "f/16 still blurs a little")
    }

    @Test func focusingOnTheBackgroundBlursTheSubjectMatteOrNot() throws {
        let original = Self.scene()
        for matte in [true, false] {
            let rendered = try Self.depth("aperture=2.8,x=0.05,y=0.05").apply(to: original, depth: Self.field(matte: matte))
            #expect(Self.meanDifference(original, rendered, { x, y in Self.distance(x, y) > 140 }) < 1, "matte: \(matte)")
            #expect(Self.contrast(rendered, Self.subject) < Self.contrast(original, Self.subject) / 2, "matte: \(matte)")
        }
    }

    @Test func withoutAMatteTheSubjectInFocusIsKeptByItsDepth() throws {
        let original = Self.scene()
        let rendered = try Self.depth("aperture=2.8," + Self.focusOnDisc).apply(to: original, depth: Self.field(matte: false))
        #expect(Self.meanDifference(original, rendered, { x, y in Self.distance(x, y) < 75 }) < 1)
        #expect(Self.contrast(rendered, Self.background) < Self.contrast(original, Self.background) / 2)
    }

    @Test func aFlatDepthMapOrNoDepthChangesNothing() throws {
        let original = Self.scene()
        let flat = DepthField(nearness: PixelBuffer(width: 12, height: 9, channels: 1, components: [Float](repeating: 0.7, count: 108)))
        #expect(try Self.depth("aperture=1.4").apply(to: original, depth: flat) == original)
        #expect(try Self.depth("aperture=1.4").apply(to: original, depth: nil) == original)
    }

    /// A crop before the depth step moves the depth map with the picture: the disc, now
    /// elsewhere in the frame, is still the sharp part.
    @Test func theDepthMapFollowsACropBeforeTheStep() throws {
        let original = Self.scene()
        let recipe = FilterRecipe(steps: [
            try FilterStep(parsing: "crop:x=0.3,y=0.2,width=0.7,height=0.8"),
            // The disc's centre in the cropped frame.
            try FilterStep(parsing: "depth:aperture=1.4,x=\((240.0 - 144) / 336),y=\((200.0 - 72) / 288)"),
        ])
        let rendered = recipe.apply(to: original, depth: Self.field())
        let cropped = FilterRecipe(steps: [recipe.steps[0]]).apply(to: original)
        #expect(rendered.width == 336 && rendered.height == 288)
        let moved = { (x: Int, y: Int) in Self.distance(x + 144, y + 72) }
        #expect(Self.meanDifference(cropped, rendered, { moved($0, $1) < 85 }) < 1, "the disc stays sharp")
        #expect(Self.contrast(rendered, { moved($0, $1) > 130 }) < Self.contrast(cropped, { moved($0, $1) > 130 }) / 2)
    }

    /// A crop before the step frames the photo anew but leaves its blur as it was: the
    /// step then draws as it does before the crop, away from the crop's edges (where the
    /// step before it gathers from outside), at 8 and at 16 bits.
    @Test func aCropBeforeTheStepLeavesTheBlurAsItWas() throws {
        let original = Self.scene()
        // 240×180 from (120, 90): the disc's centre, (240, 200), is at (120, 110) in it.
        let crop = try FilterStep(parsing: "crop:x=0.25,y=0.25,width=0.5,height=0.5")
        let depthThenCrop = FilterRecipe(steps: [try FilterStep(parsing: "depth:aperture=1.4,x=0.5,y=\(200.0 / 360)"), crop])
        let cropThenDepth = FilterRecipe(steps: [crop, try FilterStep(parsing: "depth:aperture=1.4,x=0.5,y=\(110.0 / 180)")])
        let expected = depthThenCrop.apply(to: original, depth: Self.field())
        let rendered = cropThenDepth.apply(to: original, depth: Self.field())
        #expect(rendered.width == 240 && rendered.height == 180)
        // The background, 20 pixels from the crop's edges (its blur reaches 14).
        let background = { (x: Int, y: Int) in (20..<220).contains(x) && (20..<160).contains(y) && Self.distance(x + 120, y + 90) > 100 }
        let cropped = FilterRecipe(steps: [crop]).apply(to: original)
        #expect(Self.contrast(expected, background) < Self.contrast(cropped, background) / 2, "the background is blurred")
        #expect(Self.meanDifference(expected, rendered, background) < 1.5, "as much as before the crop")
        let sixteen = cropThenDepth.apply(to: original.sixteenBit(), depth: Self.field()).eightBit()
        #expect(Self.meanDifference(expected, sixteen, background) < 1.5, "at 16 bits too")
    }

    /// A picture of `width`×`height` pixels and a depth field at a quarter of its size,
    /// each from a function of the pixel: its colour, and its nearness.
    static func picture(_ colour: (Int, Int) -> (UInt8, UInt8, UInt8), nearness: (Int, Int) -> Float) -> (PixelBuffer<UInt8>, DepthField) {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 3
                (p.components[o], p.components[o + 1], p.components[o + 2]) = colour(x, y)
            }
        }
        var near = PixelBuffer<Float>(width: width / 4, height: height / 4, channels: 1)
        for y in 0..<near.height {
            for x in 0..<near.width { near.components[y * near.width + x] = nearness(x * 4 + 2, y * 4 + 2) }
        }
        return (p, DepthField(nearness: near))
    }

    /// A small bright light far behind the subject is drawn as a lens draws it: a disc,
    /// evenly bright to near its rim and dark past it (a Gaussian blur of the same spread
    /// is a cone: a third as bright three quarters of the way out).
    @Test func aLightFarBehindTheFocusBecomesADisc() throws {
        let light = (x: 100, y: 100)
        let rendered = try Self.lightScene(light, around: 0)
        // The background's radius: k · (1 − 0.03), k = 4% of the short side at f/1.4.
        let radius = 0.04 * Double(Self.height) * 0.97
        Self.expectDisc(rendered, light, radius: radius, evenAt: [0.3, 0.5, 0.75], darkPast: 1.5, darkBelow: 0.05)
    }

    /// A light whose blur falls between two of the copies' radii is one evenly bright disc
    /// of its own radius, not a bright core (the smaller copy's disc) inside a faint rim
    /// (the larger's).
    @Test func aLightBetweenTwoCopiesRadiiIsOneEvenDisc() throws {
        let light = (x: 100, y: 100)
        // The background's radius is k · 0.97 (the largest copy's); the light's, three
        // quarters of it, between the two copies' (half and all of it).
        let rendered = try Self.lightScene(light, around: 1 - (0.75 * 0.97 + 0.03))
        let radius = 0.75 * 0.04 * Double(Self.height) * 0.97
        // Even out to its rim (the light is 5 pixels wide: its disc's edge is that soft).
        Self.expectDisc(rendered, light, radius: radius, evenAt: [0.3, 0.55, 0.8], darkPast: 1.3, darkBelow: 0.1)
    }

    /// The same for a light in front of the plane in focus: scattered over the picture
    /// behind it, it is one even disc too, not the smaller copy's disc inside the larger's.
    @Test func aLightInFrontBetweenTwoCopiesRadiiIsOneEvenDisc() throws {
        let light = (x: 100, y: 100)
        // Focused on the black background (nearness 0): the red subject (1) in front is
        // the most blurred, k · 0.97; the light, nearer than the focus by three quarters
        // of that, is in front too.
        let rendered = try Self.lightScene(light, around: 0.75 * 0.97 + 0.03, focus: "x=0.1,y=0.9")
        let radius = 0.75 * 0.04 * Double(Self.height) * 0.97
        Self.expectDisc(rendered, light, radius: radius, evenAt: [0.3, 0.55, 0.8], darkPast: 1.3, darkBelow: 0.1)
    }

    /// A 5×5 white light on black far behind a red subject in focus (nearness 1), the 40
    /// pixels around the light at nearness `around` (0, the background's), rendered at
    /// f/1.4 focused on the subject (or at `focus`).
    static func lightScene(_ light: (x: Int, y: Int), around: Float, focus: String = "x=0.75,y=0.667") throws -> PixelBuffer<UInt8> {
        let onSubject = { (x: Int, y: Int) in (x - 360) * (x - 360) + (y - 240) * (y - 240) < 60 * 60 }
        let nearLight = { (x: Int, y: Int) in (x - light.x) * (x - light.x) + (y - light.y) * (y - light.y) < 40 * 40 }
        let (original, field) = picture(
            { x, y in
                if onSubject(x, y) { return (200, 80, 60) }
                return abs(x - light.x) <= 2 && abs(y - light.y) <= 2 ? (255, 255, 255) : (0, 0, 0)
            }, nearness: { x, y in onSubject(x, y) ? 1 : nearLight(x, y) ? around : 0 })
        return try depth("aperture=1.4," + focus).apply(to: original, depth: field)
    }

    /// The light rendered as a disc of `radius` pixels: bright at its centre, at least
    /// three quarters of that at each of the fractions `evenAt` of the radius, at most
    /// `darkBelow` of it at `darkPast` radii, and its energy (a 5×5 white light, 25 in
    /// linear green within 30 pixels) kept within 15%.
    static func expectDisc(
        _ rendered: PixelBuffer<UInt8>, _ light: (x: Int, y: Int), radius: Double, evenAt: [Double], darkPast: Double, darkBelow: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // Mean linear green at distance d from the light, along the four directions.
        func level(_ d: Double) -> Double {
            [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)].map { dx, dy in
                SRGB.linear(Double(rendered[x: light.x + Int((dx * d).rounded()), y: light.y + Int((dy * d).rounded()), channel: 1]) / 255)
            }.reduce(0, +) / 4
        }
        let centre = level(0)
        #expect(centre > 0.01, "the light's disc at its centre: \(centre)", sourceLocation: sourceLocation)
        for fraction in evenAt {
            #expect(
                level(radius * fraction) >= centre * 0.75, "at \(fraction) of the radius: \(level(radius * fraction)) against \(centre)",
                sourceLocation: sourceLocation)
        }
        #expect(
            level(radius * darkPast) <= centre * darkBelow, "past the rim: \(level(radius * darkPast)) against \(centre)",
            sourceLocation: sourceLocation)
        var total = 0.0
        for y in (light.y - 30)...(light.y + 30) {
            for x in (light.x - 30)...(light.x + 30) { total += SRGB.linear(Double(rendered[x: x, y: y, channel: 1]) / 255) }
        }
        #expect(abs(total - 25) < 25 * 0.15, "the light's energy: \(total) against 25", sourceLocation: sourceLocation)
    }

    /// A bar in front of the subject in focus is blurred, and its blurred edge spreads over
    /// the subject beside it, as a lens draws it; the subject farther off stays sharp.
    @Test func aBlurredForegroundSpreadsOverTheSubjectBehindIt() throws {
        let onBar = { (x: Int, y: Int) in (180..<230).contains(x) && (20..<340).contains(y) }
        let onSubject = { (x: Int, y: Int) in (120..<400).contains(x) && (60..<300).contains(y) }
        let (original, field) = Self.picture(
            { x, y in
                if onBar(x, y) { return (40, 60, 200) }
                if onSubject(x, y) { return (x / 3) % 2 == 0 ? (210, 70, 60) : (120, 30, 30) }
                return ((x / 6) + (y / 6)) % 2 == 0 ? (70, 70, 70) : (190, 190, 190)
            }, nearness: { x, y in onBar(x, y) ? 1 : onSubject(x, y) ? 0.5 : 0 })
        let rendered = try Self.depth("aperture=1.4,x=0.625,y=0.5").apply(to: original, depth: field)
        // Just beside the bar, on the subject: the bar's blue over it.
        var bluer = 0.0, n = 0
        for y in 80..<280 {
            for x in 230..<233 {
                bluer += Double(rendered[x: x, y: y, channel: 2]) - Double(original[x: x, y: y, channel: 2])
                n += 1
            }
        }
        #expect(bluer / Double(n) > 25, "the bar's blur over the subject beside it: \(bluer / Double(n)) levels bluer")
        // Three radii off (the bar's radius is 4% of the short side · 0.47): as it was.
        #expect(Self.meanDifference(original, rendered, { x, y in (255..<380).contains(x) && (80..<280).contains(y) }) < 1)
        // The bar itself is blurred: its stripes of the subject behind are not there, its edge is soft.
        #expect(Self.contrast(rendered, { x, y in (170..<240).contains(x) && (80..<280).contains(y) })
            < Self.contrast(original, { x, y in (170..<240).contains(x) && (80..<280).contains(y) }))
    }

    /// Where a near bar meets the far background, the depth map passes through the focus
    /// (a phone's depth map is soft at edges: here a ramp over 4 of its samples); the
    /// background there is blurred as the rest is, with no sharp outline left along the
    /// bar's edge.
    @Test func aNearObjectsEdgeAgainstTheBackgroundLeavesNoSharpOutline() throws {
        let onBar = { (x: Int, _: Int) in (180..<230).contains(x) }
        let onSubject = { (x: Int, y: Int) in (320..<440).contains(x) && (60..<300).contains(y) }
        let (original, field) = Self.picture(
            { x, y in
                if onBar(x, y) { return (40, 60, 200) }
                if onSubject(x, y) { return (200, 80, 60) }
                return ((x / 2) + (y / 2)) % 2 == 0 ? (70, 70, 70) : (190, 190, 190)
            },
            nearness: { x, y in
                if onSubject(x, y) { return 0.5 }
                let fromBar = x < 180 ? 180 - x : x < 230 ? 0 : x - 229
                return Float(min(1, max(0, 1 - Double(fromBar) / 16 + 0.5)))
            })
        let rendered = try Self.depth("aperture=1.4,x=0.792,y=0.5").apply(to: original, depth: field)
        // Each column's contrast down the background beside the bar, against the checker's.
        func contrast(_ p: PixelBuffer<UInt8>, column x: Int) -> Double {
            (40..<319).map { y in abs(Double(p[x: x, y: y + 1, channel: 1]) - Double(p[x: x, y: y, channel: 1])) }.reduce(0, +) / 279
        }
        let checker = contrast(original, column: 100)
        for x in Array(164..<180) + Array(230..<246) {
            #expect(contrast(rendered, column: x) < checker * 0.25, "column \(x): \(contrast(rendered, column: x)) against \(checker)")
        }
    }

    @Test func theStepIsWrittenAndCheckedAsTheOthersAre() throws {
        let step = try FilterStep(parsing: "depth:aperture=2.8,x=0.42,y=0.36")
        #expect(step.description == "depth:aperture=2.8,x=0.42,y=0.36")
        #expect(throws: FilterError.self) { try FilterStep(parsing: "depth:aperture=1") }
        #expect(throws: FilterError.self) { try FilterStep(parsing: "depth:x=1.5") }
        #expect(FilterRecipe(steps: [step]).needsDepth && !FilterRecipe(steps: [step]).withoutDepth.needsDepth)
        #expect(!FilterRecipe(steps: [step]).treatsEveryDirectionAlike)
    }
}
