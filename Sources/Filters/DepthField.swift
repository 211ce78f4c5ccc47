import Imaging

/// A photo's depth as the depth step reads it: planes in the picture's displayed
/// orientation, each at its own resolution (a depth map is usually far smaller than the
/// photo), covering the whole picture.
///
/// `nearness` grows toward the camera, in any units whose differences are proportional to
/// a lens's blur: disparity as it is stored, or one over depth. `matte` is the Portrait
/// matte (1 on the person, 0 elsewhere), when the photo has one.
///
/// A geometry step before the depth step reshapes the planes, and the field keeps what the
/// depth of field is measured by on the whole photo (``wholeSpan``, ``wholeShortSide``): a
/// crop or straighten frames the photo anew but leaves its blur as it was.
public struct DepthField: Sendable {
    public var nearness: PixelBuffer<Float>
    public var matte: PixelBuffer<Float>?
    /// The whole photo's nearness span, once a geometry step has reshaped the planes;
    /// nil before (the planes are the whole photo's).
    private(set) var wholeSpan: NearnessSpan?
    /// The whole photo's short side over the picture's: 1 until a geometry step reshapes it.
    private(set) var wholeShortSide = 1.0

    public init(nearness: PixelBuffer<Float>, matte: PixelBuffer<Float>? = nil) {
        precondition(nearness.channels == 1 && (matte?.channels ?? 1) == 1, "a depth field's planes have one channel")
        self.nearness = nearness
        self.matte = matte
    }

    /// The span the depth step scales nearness over: the whole photo's.
    var span: NearnessSpan? { wholeSpan ?? NearnessSpan(of: nearness) }

    /// The field after a geometry step over a `width`×`height` picture: each plane
    /// reshaped by the placement made for its own size, so it still lines up with the
    /// reshaped picture.
    func reshaped(by filter: any GeometryFilter, pictureWidth width: Int, height: Int) -> DepthField {
        var out = self
        let after = filter.placement(width: width, height: height)
        out.wholeSpan = span
        out.wholeShortSide = wholeShortSide * Double(min(width, height)) / Double(max(1, min(after.width, after.height)))
        out.nearness = filter.placement(width: nearness.width, height: nearness.height).apply(to: nearness)
        if let matte { out.matte = filter.placement(width: matte.width, height: matte.height).apply(to: matte) }
        return out
    }
}

/// The nearness a depth step scales to 0 and 1: a depth map's 2nd and 98th percentiles,
/// from a sample of at most 65,536 of its values (its nearest and farthest few, often
/// noise or sky, left out).
struct NearnessSpan: Sendable, Equatable {
    var low: Float, high: Float

    /// nil when the map is flat (or has fewer than two finite values).
    init?(of nearness: PixelBuffer<Float>) {
        let step = max(1, nearness.components.count / 65_536)
        var sample = stride(from: 0, to: nearness.components.count, by: step).map { nearness.components[$0] }.filter(\.isFinite)
        sample.sort()
        guard sample.count > 1 else { return nil }
        (low, high) = (sample[sample.count * 2 / 100], sample[sample.count * 98 / 100])
        guard high - low > 1e-6 else { return nil }
    }

    /// `v` scaled so the span is 0 to 1, clamped; a value that is not finite is 0 (far).
    func normalised(_ v: Float) -> Float { v.isFinite ? min(1, max(0, (v - low) / (high - low))) : 0 }
}

extension FilterRecipe {
    /// Whether a step reads the photo's depth (``DepthFilter``).
    public var needsDepth: Bool {
        steps.contains { $0.name == DepthFilter.name }
    }

    /// The recipe without the steps that read depth: for a movie's frames, which have none.
    public var withoutDepth: FilterRecipe {
        FilterRecipe(steps: steps.filter { $0.name != DepthFilter.name })
    }

    /// RGB pixels (displayed orientation) through every step, the depth steps reading
    /// `depth` (the picture's, before any step), which the geometry steps reshape as they
    /// go. Without `depth`, the depth steps leave the picture as it is.
    public func apply(to image: consuming PixelBuffer<UInt8>, depth: DepthField?) -> PixelBuffer<UInt8> {
        guard var field = depth, needsDepth else { return apply(to: image) }
        var pixels = image
        for step in steps {
            let filter = FilterCatalog.filter(named: step.name)!.init(parameters: step.parameters)
            if let geometry = filter as? any GeometryFilter { field = field.reshaped(by: geometry, pictureWidth: pixels.width, height: pixels.height) }
            if let depthStep = filter as? DepthFilter {
                pixels = depthStep.apply(to: consume pixels, depth: field)
            } else {
                pixels = filter.apply(to: consume pixels)
            }
        }
        return pixels
    }

    /// ``apply(toStored:shownIn:)`` with the picture's depth (displayed orientation).
    public func apply(toStored image: consuming PixelBuffer<UInt8>, shownIn orientation: EXIFOrientation, depth: DepthField?)
        -> PixelBuffer<UInt8>
    {
        guard depth != nil, needsDepth else { return apply(toStored: image, shownIn: orientation) }
        if orientation == .up { return apply(to: image, depth: depth) }
        let upright = (consume image).reoriented(orientation)
        return apply(to: upright, depth: depth).reoriented(orientation.inverse)
    }
}
