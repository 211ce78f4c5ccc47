import Imaging

/// A filter that draws a picture region by region, for pictures too large to hold whole
/// (a 200-megapixel HEIC grid is rendered tile by tile). Every filter of camlib is one,
/// and its `apply(to:)` is its plan drawn over the whole picture, so a picture looks the
/// same whichever way it is rendered.
public protocol RegionFilter: ImageFilter {
    /// The softened working-size picture (`SmoothedImage`) the filter decides by: its
    /// short side and blur radius; nil when it needs nothing of the whole picture.
    var summarySize: (shortSide: Int, blurRadius: Int)? { get }
    /// Ready to draw any region of a `width`×`height` picture whose summary is `summary`
    /// (at `summarySize`; nil when that is nil).
    func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan
    /// Whether its plans draw every pixel from the summary alone, reading nothing of the
    /// picture (their `ignoresPixels`).
    static var drawsFromSummaryAlone: Bool { get }
    /// Whether its plans also draw a whole picture straight into Y'CbCr 4:2:0 planes
    /// (`YCbCrRegionPlan`), as a video encoder takes them.
    static var drawsYCbCr: Bool { get }
    /// As `plan`, ready to draw regions of 16-bit samples at that depth (a 10-bit HEIC
    /// grid); nil when the filter draws 8 bits only (comic, posterize), whose regions are
    /// then rounded to 8 bits and widened again, as a whole picture is.
    func sixteenBitPlan(width: Int, height: Int, summary: SmoothedImage?) -> (any SixteenBitRegionPlan)?
}

/// A filter ready to draw the regions of one picture.
public protocol RegionPlan: Sendable {
    /// Draws over `pixels` (RGB), the region whose top-left pixel is (x, y) of the picture,
    /// in place.
    func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int)
    /// Whether the drawing replaces every pixel without reading it (comic draws from its
    /// summary alone): the region need not be read for it.
    var ignoresPixels: Bool { get }
}

extension RegionPlan {
    public var ignoresPixels: Bool { false }
}

/// A plan that also draws regions of 16-bit RGB (the full 0...65535 range), as the
/// filter's ``SixteenBitFilter/apply(to:)`` draws a whole picture.
public protocol SixteenBitRegionPlan: RegionPlan {
    func draw(_ pixels: inout PixelBuffer<UInt16>, x: Int, y: Int)
}

/// A pixel filter that works at 16 bits is its own 16-bit plan: a region is drawn as a
/// whole picture is.
extension SixteenBitRegionPlan where Self: PixelFilter & SixteenBitFilter {
    public func draw(_ pixels: inout PixelBuffer<UInt16>, x: Int, y: Int) { pixels = apply(to: pixels) }
}

/// A plan that can also draw a whole picture as Y'CbCr 4:2:0 (BT.709, the target's
/// range), the pixels it would draw as RGB, without an RGB picture in between.
public protocol YCbCrRegionPlan: RegionPlan {
    func draw(into target: YCbCr420Planes)
}

extension RegionFilter {
    public var summarySize: (shortSide: Int, blurRadius: Int)? { nil }
    public static var drawsFromSummaryAlone: Bool { false }
    public static var drawsYCbCr: Bool { false }
    public func sixteenBitPlan(width: Int, height: Int, summary: SmoothedImage?) -> (any SixteenBitRegionPlan)? {
        plan(width: width, height: height, summary: summary) as? any SixteenBitRegionPlan
    }

    /// The whole picture: its summary, then the plan drawn over it, in its own storage.
    func applyByPlan(_ image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        precondition(image.channels == 3, "filters take RGB")
        var out = image
        let summary = summarySize.map { SmoothedImage(out, shortSide: $0.shortSide, blurRadius: $0.blurRadius) }
        plan(width: out.width, height: out.height, summary: summary).draw(&out, x: 0, y: 0)
        return out
    }
}

/// A filter that works pixel by pixel is its own plan.
public protocol PixelFilter: RegionFilter, RegionPlan {
    func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8)
}

extension PixelFilter {
    public static var treatsEveryDirectionAlike: Bool { true }
    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan { self }
    public func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { mapPixels(&pixels, transform) }
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var out = image
        mapPixels(&out, transform)
        return out
    }
}

/// A recipe drawn over a picture read region by region, for pictures too large to hold
/// whole. A step that decides by the whole picture (comic, posterize, highlights,
/// shadows) needs a pass over every region (`summarize`) before anything is drawn, with
/// the steps before it drawn over the regions it summarises: one pass for each such step.
/// Regions are RGB of 8 bits a sample, or of 16 when it is made `sixteenBit`.
public final class RegionRendering {
    public let width: Int, height: Int
    /// Whether its regions are 16-bit (`summarize` and `draw` of `PixelBuffer<UInt16>`).
    public let sixteenBit: Bool
    private let filters: [any RegionFilter]
    private var plans: [(any RegionPlan)?]
    /// The steps that summarise the picture, in order.
    private let summarySteps: [Int]
    /// The current pass's sums, made when its first region comes.
    private var accumulator: AreaAccumulator?
    /// The size of the summary when it is all the recipe needs of the picture.
    public let summaryAloneSize: (width: Int, height: Int)?
    /// Whether the recipe, drawn from its summary alone, can be drawn straight into
    /// Y'CbCr 4:2:0 planes (`draw(into:)`): one step, whose plans can.
    public let drawsYCbCr: Bool

    /// nil when a step cannot be drawn region by region. `sixteenBit`: the regions are
    /// 16-bit, and each step that works at 16 bits draws them at that depth.
    public init?(recipe: FilterRecipe, width: Int, height: Int, sixteenBit: Bool = false) {
        let filters: [any RegionFilter] = recipe.steps.compactMap {
            FilterCatalog.filter(named: $0.name)?.init(parameters: $0.parameters) as? any RegionFilter
        }
        guard filters.count == recipe.steps.count else { return nil }
        (self.width, self.height, self.filters, self.sixteenBit) = (width, height, filters, sixteenBit)
        summarySteps = filters.indices.filter { filters[$0].summarySize != nil }
        plans = []
        // Summarising first and drawing from the summary alone (comic), the recipe needs
        // nothing of the picture but its average at the working size.
        if summarySteps == [0], type(of: filters[0]).drawsFromSummaryAlone, let size = filters[0].summarySize {
            let shape = SmoothedImage.workingSize(width: width, height: height, shortSide: size.shortSide)
            summaryAloneSize = (shape.width, shape.height)
        } else {
            summaryAloneSize = nil
        }
        drawsYCbCr = summaryAloneSize != nil && filters.count == 1 && type(of: filters[0]).drawsYCbCr
        plans = filters.indices.map { filters[$0].summarySize == nil ? plan(step: $0, summary: nil) : nil }
    }

    /// Step `i`'s plan, at 16 bits where it can and the regions are.
    private func plan(step i: Int, summary: SmoothedImage?) -> any RegionPlan {
        if sixteenBit, let deep = filters[i].sixteenBitPlan(width: width, height: height, summary: summary) { return deep }
        return filters[i].plan(width: width, height: height, summary: summary)
    }

    /// The working size and scale of the first step's summary.
    private var firstShape: (width: Int, height: Int, scale: Double, blurRadius: Int) {
        let size = filters[0].summarySize!
        let shape = SmoothedImage.workingSize(width: width, height: height, shortSide: size.shortSide)
        return (shape.width, shape.height, shape.scale, size.blurRadius)
    }

    /// The first pass at once, when the summary is all the recipe needs of the picture
    /// (`summaryAloneSize`): from the picture already averaged down to that size (as a
    /// movie decoder's scaler does, from the frame as decoded). Then `draw` may be given
    /// any region of the right size: it reads nothing of it.
    public func summarize(averaged picture: borrowing PixelBuffer<UInt8>) {
        guard let size = summaryAloneSize else { preconditionFailure("the recipe needs more of the picture than its average") }
        precondition(picture.channels == 3 && picture.width == size.width && picture.height == size.height, "the picture at the summary's size")
        let shape = firstShape
        plans[0] = plan(step: 0, summary: SmoothedImage(averagedPicture: picture, scale: shape.scale, blurRadius: shape.blurRadius))
    }

    /// As `summarize(averaged:)`, from the picture reduced to any size from the working
    /// size up (a still's Y'CbCr planes halved as stored): averaged down the rest of the way
    /// here, in floating point.
    public func summarize(reduced picture: PixelBuffer<UInt8>) {
        guard let size = summaryAloneSize else { preconditionFailure("the recipe needs more of the picture than its average") }
        precondition(picture.channels == 3 && picture.width >= size.width && picture.height >= size.height, "the picture at least at the summary's size")
        let planes = SmoothedImage.areaAverage(picture, width: size.width, height: size.height)
        let shape = firstShape
        plans[0] = plan(step: 0, summary: SmoothedImage(averaged: planes, scale: shape.scale, blurRadius: shape.blurRadius))
    }

    /// The step the next pass summarises: the first whose plan waits for its summary.
    private var pendingStep: Int? { summarySteps.first { plans[$0] == nil } }

    /// Whether every region must be passed to `summarize` (and then `finishSummary`
    /// called) before `draw`; true again after a pass while another step waits for its own.
    public var needsSummary: Bool { pendingStep != nil }

    /// A pass: a region (RGB, as read) whose top-left pixel is (x, y).
    public func summarize(_ region: consuming PixelBuffer<UInt8>, x: Int, y: Int) {
        precondition(!sixteenBit, "the rendering's regions are 16-bit")
        guard let step = pendingStep else { return }
        var pixels = region
        for plan in plans[..<step] { plan!.draw(&pixels, x: x, y: y) }
        accumulator(for: step).add(pixels, x: x, y: y)
    }

    /// A pass over 16-bit regions: the steps before drawn at 16 bits, the summary made of
    /// the result rounded to 8 bits, as a whole 16-bit picture's is.
    public func summarize(_ region: consuming PixelBuffer<UInt16>, x: Int, y: Int) {
        precondition(sixteenBit, "the rendering's regions are 8-bit")
        guard let step = pendingStep else { return }
        var pixels = region
        Self.draw(plans[..<step], over: &pixels, x: x, y: y)
        accumulator(for: step).add(pixels.eightBit(), x: x, y: y)
    }

    /// The current pass's sums, made with its first region.
    private func accumulator(for step: Int) -> AreaAccumulator {
        if let accumulator { return accumulator }
        let made = AreaAccumulator(width: width, height: height, shortSide: filters[step].summarySize!.shortSide)
        accumulator = made
        return made
    }

    /// Ends a pass: the step it summarised has its plan.
    public func finishSummary() {
        guard let step = pendingStep, let size = filters[step].summarySize else { return }
        let sums = accumulator ?? AreaAccumulator(width: width, height: height, shortSide: size.shortSide)
        plans[step] = plan(step: step, summary: sums.smoothed(blurRadius: size.blurRadius))
        accumulator = nil
    }

    /// Whether `draw` reads the region's pixels; when not (a comic is drawn from its
    /// summary alone, and what comes before it is already in the summary), any region of
    /// the right size will do, and the picture need not be read a second time.
    public var drawReadsPixels: Bool {
        precondition(!needsSummary, "the summary pass comes first")
        return !plans.contains { $0!.ignoresPixels }
    }

    /// The whole picture drawn straight into Y'CbCr 4:2:0 planes of its size, when
    /// `drawsYCbCr`, after `summarize(averaged:)`.
    public func draw(into target: YCbCr420Planes) {
        precondition(!needsSummary, "the summary pass comes first")
        guard drawsYCbCr, let plan = plans[0] as? any YCbCrRegionPlan else { preconditionFailure("the recipe draws RGB") }
        precondition(target.width == width && target.height == height, "planes of the picture's size")
        plan.draw(into: target)
    }

    /// Second pass: every step drawn over a region (RGB, as read, unless
    /// `drawReadsPixels` is false) whose top-left pixel is (x, y), in place. Steps before
    /// the last one that ignores its pixels are skipped: nothing of theirs would show.
    public func draw(_ region: inout PixelBuffer<UInt8>, x: Int, y: Int) {
        precondition(!needsSummary, "the summary pass comes first")
        precondition(!sixteenBit, "the rendering's regions are 16-bit")
        for plan in plans[firstDrawn...] { plan!.draw(&region, x: x, y: y) }
    }

    /// The same over a 16-bit region.
    public func draw(_ region: inout PixelBuffer<UInt16>, x: Int, y: Int) {
        precondition(!needsSummary, "the summary pass comes first")
        precondition(sixteenBit, "the rendering's regions are 8-bit")
        Self.draw(plans[firstDrawn...], over: &region, x: x, y: y)
    }

    /// The first step whose drawing shows: the last that ignores its pixels, or the first.
    private var firstDrawn: Int { plans.lastIndex { $0!.ignoresPixels } ?? 0 }

    /// `plans` over a 16-bit region: each that draws 16 bits at that depth, each run of
    /// the others over the region rounded to 8 bits, widened again after it.
    private static func draw(_ plans: ArraySlice<(any RegionPlan)?>, over region: inout PixelBuffer<UInt16>, x: Int, y: Int) {
        var rounded: PixelBuffer<UInt8>?
        for plan in plans {
            if let deep = plan! as? any SixteenBitRegionPlan {
                if let eight = rounded.take() { region = eight.sixteenBit() }
                deep.draw(&region, x: x, y: y)
            } else {
                var eight = rounded.take() ?? region.eightBit()
                plan!.draw(&eight, x: x, y: y)
                rounded = eight
            }
        }
        if let eight = rounded.take() { region = eight.sixteenBit() }
    }
}

/// The samples a ``RegionRendering`` draws regions of: 8-bit, or 16-bit when the
/// rendering is `sixteenBit`. Code that reads regions of either kind (a HEIC grid's
/// tiles) is written once over it.
public protocol RegionSample: PixelComponent {
    static func summarize(_ region: consuming PixelBuffer<Self>, in rendering: RegionRendering, x: Int, y: Int)
    static func draw(_ region: inout PixelBuffer<Self>, in rendering: RegionRendering, x: Int, y: Int)
    /// The region at 8 bits (a thumbnail is made of them).
    static func eightBit(_ region: borrowing PixelBuffer<Self>) -> PixelBuffer<UInt8>
    /// `region` reshaped by `placement` (``GeometryPlacement/apply(to:)`` for the type).
    static func placed(_ region: borrowing PixelBuffer<Self>, by placement: GeometryPlacement) -> PixelBuffer<Self>
}

extension UInt8: RegionSample {
    public static func summarize(_ region: consuming PixelBuffer<UInt8>, in rendering: RegionRendering, x: Int, y: Int) {
        rendering.summarize(region, x: x, y: y)
    }
    public static func draw(_ region: inout PixelBuffer<UInt8>, in rendering: RegionRendering, x: Int, y: Int) {
        rendering.draw(&region, x: x, y: y)
    }
    public static func eightBit(_ region: borrowing PixelBuffer<UInt8>) -> PixelBuffer<UInt8> { copy region }
    public static func placed(_ region: borrowing PixelBuffer<UInt8>, by placement: GeometryPlacement) -> PixelBuffer<UInt8> {
        placement.apply(to: region)
    }
}

extension UInt16: RegionSample {
    public static func summarize(_ region: consuming PixelBuffer<UInt16>, in rendering: RegionRendering, x: Int, y: Int) {
        rendering.summarize(region, x: x, y: y)
    }
    public static func draw(_ region: inout PixelBuffer<UInt16>, in rendering: RegionRendering, x: Int, y: Int) {
        rendering.draw(&region, x: x, y: y)
    }
    public static func eightBit(_ region: borrowing PixelBuffer<UInt16>) -> PixelBuffer<UInt8> { region.eightBit() }
    public static func placed(_ region: borrowing PixelBuffer<UInt16>, by placement: GeometryPlacement) -> PixelBuffer<UInt16> {
        placement.apply(to: region)
    }
}
