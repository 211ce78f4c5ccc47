import Imaging

/// The look of Core Image's CIComicEffect ("outlines edges and applies a color
/// halftone"): bold dark ink lines along object edges, flat posterised colour, and a
/// colour halftone of dots that grow with the darkness under them.
///
/// Regions, lines and dot sizes are decided on the picture averaged down to a working
/// size (`SmoothedImage`, 720 pixels on the short side) and drawn at full size from it, so:
/// - every size gets the same look: line width and dot cells are thousandths of the
///   short side, and a movie frame and its still are decided at the same working size;
/// - lines are whole and follow object edges (`InkLines`: Canny's thin lines with
///   hysteresis, short texture flecks left out), with smooth sides at any width;
/// - colour regions are flat with clean borders: the fill is posterised from the softened
///   colours, so noise does not break a smooth sky into speckled bands;
/// - the halftone screen is fixed to the picture and its dots are sized from the softened
///   luma, so a movie's frames do not shimmer.
public struct ComicFilter: RegionFilter {
    /// Outlines along edges of any direction, fills by tone, and a 45° dot screen, which a
    /// quarter turn or a mirror maps onto itself (the dots' phase moves, their look does not).
    public static let treatsEveryDirectionAlike = true
    public static let name = "comic"
    public static let drawsFromSummaryAlone = true
    public static let summary = "bold outlines, flat colours and a halftone, like CIComicEffect"
    public static let parameters = [
        FilterParameter(name: "edges", defaultValue: 0.12, range: 0.01...1, help: "edge threshold; lower draws more lines"),
        FilterParameter(name: "lineWidth", defaultValue: 4, range: 0.5...20, help: "outline thickness in thousandths of the short side"),
        FilterParameter(name: "levels", defaultValue: 5, range: 2...32, help: "tones of the fill"),
        FilterParameter(name: "dot", defaultValue: 0, range: 0...100, help: "halftone cell in thousandths of the short side (0: 10)"),
        FilterParameter(name: "ink", defaultValue: 0.35, range: 0...1, help: "how much a halftone dot darkens the fill"),
    ]
    /// The short side regions and lines are decided at.
    static let workingShortSide = 720
    static let inkColour: (Float, Float, Float) = (20, 20, 24)

    let lines: InkLines
    let lineWidth: Double
    /// Steps between the fill's tones (levels - 1).
    let steps: Float
    let ink: Float
    let dot: Double
    /// How much of the softened colours' chroma the fill keeps (more than all of it).
    static let saturation: Float = 1.3

    public init(parameters: [String: Double]) {
        let edges = Float(parameters["edges"] ?? 0.12)
        lines = InkLines(high: edges * 200, low: edges * 80, minimumLength: Self.workingShortSide / 40)
        lineWidth = parameters["lineWidth"] ?? 4
        steps = Float(Int(parameters["levels"] ?? 5) - 1)
        ink = Float(parameters["ink"] ?? 0.35)
        dot = (parameters["dot"] ?? 0) > 0 ? parameters["dot"]! : 10
    }

    public var summarySize: (shortSide: Int, blurRadius: Int)? { (Self.workingShortSide, 1) }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        precondition(image.channels == 3, "filters take RGB")
        guard image.width >= 3, image.height >= 3 else { return PosterizeFilter(parameters: ["levels": 5]).apply(to: image) }
        return applyByPlan(image)
    }

    /// Lines, dot sizes and colours decided at the working size; the drawing needs nothing
    /// of the picture itself.
    public func plan(width w: Int, height h: Int, summary: SmoothedImage?) -> any RegionPlan {
        let soft = summary!
        let short = Double(min(w, h))
        let screen = HalftoneScreen(cell: max(4, Int((dot / 1000 * short).rounded())), width: w, height: h) { x, y in
            soft.sample(soft.luma, x: x, y: y)
        }
        let (mask, slope) = lineMask(soft, short: short)
        return Plan(rows: UpsampledRows([soft.red, soft.green, soft.blue, mask], width: w, height: h), screen: screen, slope: slope, steps: steps, ink: ink)
    }

    struct Plan: RegionPlan {
        /// Every pixel is drawn from the summary: lines, tones, dots.
        var ignoresPixels: Bool { ComicFilter.drawsFromSummaryAlone }
        let rows: UpsampledRows
        let screen: HalftoneScreen
        let slope: Float
        let steps: Float
        let ink: Float

        func draw(_ pixels: inout PixelBuffer<UInt8>, x left: Int, y top: Int) {
            let w = pixels.width
            let (ink, slope, screen) = (ink, slope, screen)
            let (inkR, inkG, inkB) = ComicFilter.inkColour
            let saturation = ComicFilter.saturation
            // The picture itself is not read: the output goes into its storage.
            rows.forEachRow(of: &pixels, x: left, y: top, extraRows: 3) { y, planes, extra, o in
                let (r, g, b, m) = (planes[0], planes[1], planes[2], planes[3])
                let dotted = extra, l = extra + w, tone = extra + 2 * w
                screen.dots(inRow: y, x: left, count: w, into: dotted)
                typealias V = FloatVector.V
                // The fill: luma posterised, the colours' chroma kept and lifted, so grays
                // stay gray and hues keep their hue. A pass of its own: in one loop with
                // the composition below, the constants of both leave too few registers.
                var x = 0
                while x + FloatVector.lanes <= w {
                    let lx = 0.2126 * FloatVector.load(r + x) + 0.7152 * FloatVector.load(g + x) + 0.0722 * FloatVector.load(b + x)
                    FloatVector.store(lx, l + x)
                    FloatVector.store(ComicFilter.tone(lx, steps: steps), tone + x)
                    x += FloatVector.lanes
                }
                while x < w {
                    l[x] = 0.2126 * r[x] + 0.7152 * g[x] + 0.0722 * b[x]
                    tone[x] = ComicFilter.tone(V(repeating: l[x]), steps: steps)[0]
                    x += 1
                }
                // Several pixels at a time in vector registers, written out as bytes.
                let (zero, one, full, half) = (V(repeating: 0), V(repeating: 1), V(repeating: 255), V(repeating: 0.5))
                let (inkRV, inkGV, inkBV) = (V(repeating: inkR), V(repeating: inkG), V(repeating: inkB))
                x = 0
                while x + FloatVector.lanes <= w {
                    let lx = FloatVector.load(l + x), tx = FloatVector.load(tone + x)
                    // A dot darkens the fill by `ink`; a line covers it.
                    let darken = one - ink * FloatVector.load(dotted + x)
                    let c = FloatVector.clamp((FloatVector.load(m + x) - half) * slope + half, zero, one)
                    let fr = FloatVector.clamp(tx + saturation * (FloatVector.load(r + x) - lx), zero, full) * darken
                    let fg = FloatVector.clamp(tx + saturation * (FloatVector.load(g + x) - lx), zero, full) * darken
                    let fb = FloatVector.clamp(tx + saturation * (FloatVector.load(b + x) - lx), zero, full) * darken
                    // In 0 ... 255: nearest whole values, as bytes.
                    let vr = FloatVector.nearestBytes(fr + c * (inkRV - fr))
                    let vg = FloatVector.nearestBytes(fg + c * (inkGV - fg))
                    let vb = FloatVector.nearestBytes(fb + c * (inkBV - fb))
                    let p = o + x * 3
                    for k in 0..<FloatVector.lanes {
                        p[k * 3] = UInt8(truncatingIfNeeded: vr[k])
                        p[k * 3 + 1] = UInt8(truncatingIfNeeded: vg[k])
                        p[k * 3 + 2] = UInt8(truncatingIfNeeded: vb[k])
                    }
                    x += FloatVector.lanes
                }
                while x < w {
                    let darken = 1 - ink * dotted[x]
                    let c = min(1, max(0, (m[x] - 0.5) * slope + 0.5))
                    let fr = min(255, max(0, tone[x] + saturation * (r[x] - l[x]))) * darken
                    let fg = min(255, max(0, tone[x] + saturation * (g[x] - l[x]))) * darken
                    let fb = min(255, max(0, tone[x] + saturation * (b[x] - l[x]))) * darken
                    o[x * 3] = FloatVector.nearestByte(fr + c * (inkR - fr))
                    o[x * 3 + 1] = FloatVector.nearestByte(fg + c * (inkG - fg))
                    o[x * 3 + 2] = FloatVector.nearestByte(fb + c * (inkB - fb))
                    x += 1
                }
            }
        }
    }

    /// The fill's tone for luma `l`: the nearest of `steps + 1` levels of the luma rounded
    /// to a whole 0 ... 255, lifted so that the darkest is not black (comic tones are few,
    /// flat and bright). Arithmetic rather than a table, so that it runs in vector
    /// registers; a whole luma never lies halfway between levels (255 is odd), so the
    /// rounding cannot tip either way.
    @inline(__always) static func tone(_ l: FloatVector.V, steps: Float) -> FloatVector.V {
        typealias V = FloatVector.V
        let rounder = V(repeating: FloatVector.rounder)
        let whole = (FloatVector.clamp(l, V(repeating: 0), V(repeating: 255)) + rounder) - rounder
        let level = (whole * (steps / 255) + rounder) - rounder
        return (0.12 + 0.88 * level / steps) * 255
    }

    /// The outlines as a working-size mask (1 on a line, 0 off it) and the slope that
    /// turns its upsampled values into full-size coverage. Lines are the samples within
    /// half the line width of `InkLines`' thin lines; when the working size is much
    /// smaller than the picture the mask is softened first, so the upsampled line has
    /// smooth sides instead of the working grid's stairs, and the slope sharpens it again
    /// to about a pixel of soft rim.
    func lineMask(_ soft: SmoothedImage, short: Double) -> (FloatPlane, Float) {
        let distance = lines.distances([soft.red, soft.green, soft.blue])
        let fullHalfWidth = max(0.75, lineWidth / 1000 * short / 2)
        let smooth = soft.scale > 1.5
        // At least 0.9 working pixels, or softening would wipe the line out.
        let half = Float(max(smooth ? 0.9 : 0, fullHalfWidth / soft.scale))
        var mask = FloatPlane(width: distance.width, height: distance.height)
        for i in mask.values.indices { mask.values[i] = min(1, max(0, half + 0.5 - distance.values[i])) }
        guard smooth else { return (mask, 1) }
        return (mask.boxBlurred(radius: 1), Float(soft.scale))
    }
}
