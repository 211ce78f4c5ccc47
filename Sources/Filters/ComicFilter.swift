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
    public static let drawsYCbCr = true
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

    struct Plan: YCbCrRegionPlan {
        /// Every pixel is drawn from the summary: lines, tones, dots.
        var ignoresPixels: Bool { ComicFilter.drawsFromSummaryAlone }
        let rows: UpsampledRows
        let screen: HalftoneScreen
        let slope: Float
        let steps: Float
        let ink: Float

        func draw(_ pixels: inout PixelBuffer<UInt8>, x left: Int, y top: Int) {
            let w = pixels.width
            // The picture itself is not read: the output goes into its storage.
            rows.forEachRow(of: &pixels, x: left, y: top, extraRows: 3) { y, planes, extra, o in
                let row = prepare(y, x: left, width: w, planes: planes, extra: extra)
                // Several pixels at a time in vector registers, written out as bytes.
                var x = 0
                while x + FloatVector.lanes <= w {
                    let (red, green, blue) = row.colours(x)
                    let (vr, vg, vb) = (NearestByte.words(red), NearestByte.words(green), NearestByte.words(blue))
                    let p = o + x * 3
                    for k in 0..<FloatVector.lanes {
                        p[k * 3] = UInt8(truncatingIfNeeded: vr[k])
                        p[k * 3 + 1] = UInt8(truncatingIfNeeded: vg[k])
                        p[k * 3 + 2] = UInt8(truncatingIfNeeded: vb[k])
                    }
                    x += FloatVector.lanes
                }
                while x < w {
                    let (red, green, blue) = row.colour(x)
                    (o[x * 3], o[x * 3 + 1], o[x * 3 + 2]) = (NearestByte.byte(red), NearestByte.byte(green), NearestByte.byte(blue))
                    x += 1
                }
            }
        }

        /// The whole picture straight into Y'CbCr 4:2:0 planes (in their matrix and
        /// range), as an encoder takes it: each pixel's luma from its colour, each chroma sample from
        /// the mean colour of its 2x2 pixels. No RGB picture is made, nor converted.
        func draw(into target: YCbCr420Planes) {
            precondition(target.width % 2 == 0 && target.height % 2 == 0, "4:2:0 needs even sides")
            let w = target.width
            typealias Half = SIMD4<Float>
            // Levels: video's 16 ... 235 and 16 ... 240 unless full range.
            let lumaScale: Float = target.fullRange ? 1 : 219 / 255, lumaOffset: Float = target.fullRange ? 0 : 16
            let chromaScale: Float = target.fullRange ? 1 : 224 / 255
            let m = target.matrix
            let (cbScale, crScale) = (chromaScale / m.cbSpan, chromaScale / m.crSpan)
            let (kr, kg, kb) = (m.kr, m.kg, m.kb)
            @inline(__always) func luma(_ c: (Float, Float, Float)) -> UInt8 {
                NearestByte.byte((kr * c.0 + kg * c.1 + kb * c.2) * lumaScale + lumaOffset)
            }
            // Three rows of scratch for the row itself, and six for the colours of a pair
            // of rows (the even row's, then the odd row's), whose 2x2 means the chroma is.
            rows.forEachRow(x: 0, y: 0, width: w, height: target.height, extraRows: 9, rowsTogether: 2) { r, planes, extra in
                let row = prepare(r, x: 0, width: w, planes: planes, extra: extra)
                let lumaRow = target.luma + r * target.lumaStride
                let colours = extra + (r % 2 == 0 ? 3 : 6) * w
                let (red, green, blue) = (colours, colours + w, colours + 2 * w)
                // The pixels' colours kept for the chroma, which is worked out in a loop of
                // its own: in this one, the compiler would carry the pairing of columns
                // back through all the arithmetic, lane by lane.
                var x = 0
                while x + FloatVector.lanes <= w {
                    let (vr, vg, vb) = row.colours(x)
                    let y = (kr * vr + kg * vg + kb * vb) * lumaScale + lumaOffset
                    let bytes = SIMD8<UInt8>(truncatingIfNeeded: NearestByte.words(y))
                    UnsafeMutableRawPointer(lumaRow + x).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                    FloatVector.store(vr, red + x)
                    FloatVector.store(vg, green + x)
                    FloatVector.store(vb, blue + x)
                    x += FloatVector.lanes
                }
                while x < w {
                    let c = row.colour(x)
                    lumaRow[x] = luma(c)
                    (red[x], green[x], blue[x]) = c
                    x += 1
                }
                guard r % 2 == 1 else { return }
                // The chroma of each 2x2 pixels, from the mean of their colours.
                let (evenR, evenG, evenB) = (extra + 3 * w, extra + 4 * w, extra + 5 * w)
                let (cb, cr) = (target.cb + r / 2 * target.chromaStride, target.cr + r / 2 * target.chromaStride)
                @inline(__always) func means(_ even: UnsafeMutablePointer<Float>, _ odd: UnsafeMutablePointer<Float>, _ x: Int) -> Half {
                    let both = FloatVector.load(even + x) + FloatVector.load(odd + x)
                    return (both.evenHalf + both.oddHalf) * 0.25
                }
                x = 0
                while x + FloatVector.lanes <= w {
                    let (mr, mg, mb) = (means(evenR, red, x), means(evenG, green, x), means(evenB, blue, x))
                    let my = kr * mr + kg * mg + kb * mb
                    let i = x / 2
                    UnsafeMutableRawPointer(cb + i).storeBytes(of: NearestByte.bytes(clamping: (mb - my) * cbScale + 128), as: SIMD4<UInt8>.self)
                    UnsafeMutableRawPointer(cr + i).storeBytes(of: NearestByte.bytes(clamping: (mr - my) * crScale + 128), as: SIMD4<UInt8>.self)
                    x += FloatVector.lanes
                }
                // The rest, a pair of columns at a time (the width is even), summed as above.
                @inline(__always) func mean(_ even: UnsafeMutablePointer<Float>, _ odd: UnsafeMutablePointer<Float>, _ x: Int) -> Float {
                    ((even[x] + odd[x]) + (even[x + 1] + odd[x + 1])) * 0.25
                }
                while x < w {
                    let (mr, mg, mb) = (mean(evenR, red, x), mean(evenG, green, x), mean(evenB, blue, x))
                    let my = kr * mr + kg * mg + kb * mb
                    cb[x / 2] = NearestByte.byte(min(255, max(0, (mb - my) * cbScale + 128)))
                    cr[x / 2] = NearestByte.byte(min(255, max(0, (mr - my) * crScale + 128)))
                    x += 2
                }
            }
        }

        /// Full-size row `y`'s dots, luma and fill tone, worked out into the scratch rows
        /// `extra` (three of the region's width), beside the plan's planes read back.
        @inline(__always) func prepare(_ y: Int, x left: Int, width w: Int, planes: [UnsafeMutablePointer<Float>], extra: UnsafeMutablePointer<Float>) -> Row {
            let row = Row(
                r: planes[0], g: planes[1], b: planes[2], m: planes[3], dotted: extra, l: extra + w, tone: extra + 2 * w,
                ink: ink, slope: slope)
            screen.dots(inRow: y, x: left, count: w, into: row.dotted)
            // The fill: luma posterised, the colours' chroma kept and lifted, so grays
            // stay gray and hues keep their hue. A pass of its own: in one loop with
            // the composition, the constants of both leave too few registers. The tone is
            // of Rec. 709 luma, whatever matrix the output is coded in.
            let (kr, kg, kb) = (YCbCrMatrix.bt709.kr, YCbCrMatrix.bt709.kg, YCbCrMatrix.bt709.kb)
            var x = 0
            while x + FloatVector.lanes <= w {
                let lx = kr * FloatVector.load(row.r + x) + kg * FloatVector.load(row.g + x) + kb * FloatVector.load(row.b + x)
                FloatVector.store(lx, row.l + x)
                FloatVector.store(ComicFilter.tone(lx, steps: steps), row.tone + x)
                x += FloatVector.lanes
            }
            while x < w {
                row.l[x] = kr * row.r[x] + kg * row.g[x] + kb * row.b[x]
                row.tone[x] = ComicFilter.tone(FloatVector.V(repeating: row.l[x]), steps: steps)[0]
                x += 1
            }
            return row
        }

        /// One full-size row's makings over the region's columns: the softened colours and
        /// the line mask read back from the plan, the dots, the luma and the fill's tone.
        struct Row {
            let r, g, b, m, dotted, l, tone: UnsafeMutablePointer<Float>
            let ink: Float, slope: Float

            /// The colours of the pixels from `x` on, a vector's worth, 0 ... 255: the fill,
            /// darkened by its dot, covered by a line.
            @inline(__always) func colours(_ x: Int) -> (FloatVector.V, FloatVector.V, FloatVector.V) {
                typealias V = FloatVector.V
                let (zero, one, full, half) = (V(repeating: 0), V(repeating: 1), V(repeating: 255), V(repeating: 0.5))
                let (inkR, inkG, inkB) = ComicFilter.inkColour
                let saturation = ComicFilter.saturation
                let lx = FloatVector.load(l + x), tx = FloatVector.load(tone + x)
                // A dot darkens the fill by `ink`; a line covers it.
                let darken = one - ink * FloatVector.load(dotted + x)
                let c = ((FloatVector.load(m + x) - half) * slope + half).clamped(zero, one)
                let fr = (tx + saturation * (FloatVector.load(r + x) - lx)).clamped(zero, full) * darken
                let fg = (tx + saturation * (FloatVector.load(g + x) - lx)).clamped(zero, full) * darken
                let fb = (tx + saturation * (FloatVector.load(b + x) - lx)).clamped(zero, full) * darken
                return (fr + c * (V(repeating: inkR) - fr), fg + c * (V(repeating: inkG) - fg), fb + c * (V(repeating: inkB) - fb))
            }

            /// The colour of the pixel at `x`, as `colours` has it.
            @inline(__always) func colour(_ x: Int) -> (Float, Float, Float) {
                let (inkR, inkG, inkB) = ComicFilter.inkColour
                let saturation = ComicFilter.saturation
                let darken = 1 - ink * dotted[x]
                let c = min(1, max(0, (m[x] - 0.5) * slope + 0.5))
                let fr = min(255, max(0, tone[x] + saturation * (r[x] - l[x]))) * darken
                let fg = min(255, max(0, tone[x] + saturation * (g[x] - l[x]))) * darken
                let fb = min(255, max(0, tone[x] + saturation * (b[x] - l[x]))) * darken
                return (fr + c * (inkR - fr), fg + c * (inkG - fg), fb + c * (inkB - fb))
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
        let rounder = V(repeating: NearestByte.rounder)
        let whole = (l.clamped(0, 255) + rounder) - rounder
        let level = (whole * (steps / 255) + rounder) - rounder
        // 0.12·255 up to 255 in `steps` steps: one division for all the lanes, not one
        // in each (a vector division takes as long as a dozen multiplications).
        return 30.6 + level * (224.4 / steps)
    }

    /// The outlines as a working-size mask (1 on a line, 0 off it) and the slope that
    /// turns its upsampled values into full-size coverage. Lines are the samples within
    /// half the line width of `InkLines`' thin lines; when the working size is much
    /// smaller than the picture the mask is softened first, so the upsampled line has
    /// smooth sides instead of the working grid's stairs, and the slope sharpens it again
    /// to about a pixel of soft rim.
    func lineMask(_ soft: SmoothedImage, short: Double) -> (FloatPlane, Float) {
        let fullHalfWidth = max(0.75, lineWidth / 1000 * short / 2)
        let smooth = soft.scale > 1.5
        // At least 0.9 working pixels, or softening would wipe the line out.
        let half = Float(max(smooth ? 0.9 : 0, fullHalfWidth / soft.scale))
        let mask = lines.coverage(red: soft.red, green: soft.green, blue: soft.blue, halfWidth: half)
        guard smooth else { return (mask, 1) }
        return (mask.boxBlurred(radius: 1), Float(soft.scale))
    }
}
