import Imaging

/// A photo's depth as the depth step reads it: planes in the picture's displayed
/// orientation, each at its own resolution (a depth map is usually far smaller than the
/// photo), covering the whole picture.
///
/// `nearness` grows toward the camera, in any units whose differences are proportional to
/// a lens's blur: disparity as it is stored, or one over depth. `matte` is the Portrait
/// matte (1 on the person, 0 elsewhere), when the photo has one.
public struct DepthField: Sendable {
    public var nearness: PixelBuffer<Float>
    public var matte: PixelBuffer<Float>?

    public init(nearness: PixelBuffer<Float>, matte: PixelBuffer<Float>? = nil) {
        precondition(nearness.channels == 1 && (matte?.channels ?? 1) == 1, "a depth field's planes have one channel")
        self.nearness = nearness
        self.matte = matte
    }

    /// The field after a geometry step: each plane reshaped by the placement made for its
    /// own size, so it still lines up with the reshaped picture.
    func reshaped(by filter: any GeometryFilter) -> DepthField {
        var out = self
        out.nearness = filter.placement(width: nearness.width, height: nearness.height).apply(to: nearness)
        if let matte { out.matte = filter.placement(width: matte.width, height: matte.height).apply(to: matte) }
        return out
    }
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
            if let depthStep = filter as? DepthFilter {
                pixels = depthStep.apply(to: consume pixels, depth: field)
            } else {
                pixels = filter.apply(to: consume pixels)
            }
            if let geometry = filter as? any GeometryFilter { field = field.reshaped(by: geometry) }
        }
        return pixels
    }

    /// ``apply(toStored:shownIn:)`` with the picture's depth (displayed orientation).
    public func apply(toStored image: consuming PixelBuffer<UInt8>, shownIn orientation: EXIFOrientation, depth: DepthField?)
        -> PixelBuffer<UInt8>
    {
        guard depth != nil, needsDepth else { return apply(toStored: image, shownIn: orientation) }
        if orientation == .up { return apply(to: image, depth: depth) }
        let upright = (consume image).applying(orientation)
        return apply(to: upright, depth: depth).applying(orientation.inverse)
    }
}
