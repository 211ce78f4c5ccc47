import CRowLoops
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
            // Three rows of scratch for the row itself, and three for its colours.
            rows.forEachRow(of: &pixels, x: left, y: top, extraRows: 6) { y, planes, extra, o in
                let row = prepare(y, x: left, width: w, planes: planes, extra: extra)
                let (red, green, blue) = (extra + 3 * w, extra + 4 * w, extra + 5 * w)
                row.colours(count: w, look: look, red: red, green: green, blue: blue)
                camlib_comic_bytes(red, green, blue, w, o)
            }
        }

        /// The whole picture straight into Y'CbCr 4:2:0 planes (in their matrix and
        /// range), as an encoder takes it: each pixel's luma from its colour, each chroma sample from
        /// the mean colour of its 2x2 pixels. No RGB picture is made, nor converted.
        func draw(into target: YCbCr420Planes) {
            precondition(target.width % 2 == 0 && target.height % 2 == 0, "4:2:0 needs even sides")
            let w = target.width
            // Levels: video's 16 ... 235 and 16 ... 240 unless full range.
            let lumaScale: Float = target.fullRange ? 1 : 219 / 255, lumaOffset: Float = target.fullRange ? 0 : 16
            let chromaScale: Float = target.fullRange ? 1 : 224 / 255
            let m = target.matrix
            let (cbScale, crScale) = (chromaScale / m.cbSpan, chromaScale / m.crSpan)
            let (kr, kg, kb) = (m.kr, m.kg, m.kb)
            // Three rows of scratch for the row itself, and six for the colours of a pair
            // of rows (the even row's, then the odd row's), whose 2x2 means the chroma is.
            rows.forEachRow(x: 0, y: 0, width: w, height: target.height, extraRows: 9, rowsTogether: 2) { r, planes, extra in
                let row = prepare(r, x: 0, width: w, planes: planes, extra: extra)
                let colours = extra + (r % 2 == 0 ? 3 : 6) * w
                let (red, green, blue) = (colours, colours + w, colours + 2 * w)
                row.colours(count: w, look: look, red: red, green: green, blue: blue)
                camlib_comic_luma(red, green, blue, w, kr, kg, kb, lumaScale, lumaOffset, target.luma + r * target.lumaStride)
                guard r % 2 == 1 else { return }
                // The chroma of each 2x2 pixels, from the mean of their colours.
                camlib_comic_chroma(
                    extra + 3 * w, extra + 4 * w, extra + 5 * w, red, green, blue, w, kr, kg, kb, cbScale, crScale,
                    target.cb + r / 2 * target.chromaStride, target.cr + r / 2 * target.chromaStride)
            }
        }

        /// What the colours are made with, for `CRowLoops`' loops.
        var look: camlib_comic_look {
            let (inkRed, inkGreen, inkBlue) = ComicFilter.inkColour
            return camlib_comic_look(
                ink: ink, slope: slope, saturation: ComicFilter.saturation, inkRed: inkRed, inkGreen: inkGreen, inkBlue: inkBlue)
        }

        /// Full-size row `y`'s dots, luma and fill tone, worked out into the scratch rows
        /// `extra` (three of the region's width), beside the plan's planes read back.
        @inline(__always) func prepare(_ y: Int, x left: Int, width w: Int, planes: [UnsafeMutablePointer<Float>], extra: UnsafeMutablePointer<Float>) -> Row {
            let row = Row(r: planes[0], g: planes[1], b: planes[2], m: planes[3], dotted: extra, l: extra + w, tone: extra + 2 * w)
            screen.dots(inRow: y, x: left, count: w, into: row.dotted)
            // The fill: luma posterised, the colours' chroma kept and lifted, so grays
            // stay gray and hues keep their hue. The tone is of Rec. 709 luma, whatever
            // matrix the output is coded in.
            camlib_comic_tones(row.r, row.g, row.b, w, steps, row.l, row.tone)
            return row
        }

        /// One full-size row's makings over the region's columns: the softened colours and
        /// the line mask read back from the plan, the dots, the luma and the fill's tone.
        struct Row {
            let r, g, b, m, dotted, l, tone: UnsafeMutablePointer<Float>

            /// The pixels' colours, 0 ... 255: the fill, darkened by its dot, covered by a line.
            @inline(__always) func colours(
                count: Int, look: camlib_comic_look, red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                blue: UnsafeMutablePointer<Float>
            ) {
                withUnsafePointer(to: look) { look in
                    camlib_comic_colours(r, g, b, m, dotted, l, tone, count, look, red, green, blue)
                }
            }
        }
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
