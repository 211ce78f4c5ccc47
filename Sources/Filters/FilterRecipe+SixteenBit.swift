import Imaging

extension FilterRecipe {
    /// Whether every step works on 16-bit samples (``SixteenBitFilter``).
    public var worksInSixteenBits: Bool {
        steps.allSatisfy { FilterCatalog.filter(named: $0.name) is any SixteenBitFilter.Type }
    }

    /// 16-bit RGB pixels (displayed orientation) through every step, as
    /// ``apply(to:depth:)-(PixelBuffer<UInt8>,_)`` draws 8-bit ones: each ``SixteenBitFilter``
    /// at 16 bits; a run of other steps (comic, posterize) on the picture rounded to 8 bits,
    /// its result widened again.
    public func apply(to image: consuming PixelBuffer<UInt16>, depth: DepthField? = nil) -> PixelBuffer<UInt16> {
        var pixels = image
        var field = needsDepth ? depth : nil
        var i = 0
        while i < steps.count {
            let filter = FilterCatalog.filter(named: steps[i].name)!.init(parameters: steps[i].parameters)
            if let depthStep = filter as? DepthFilter {
                if let field { pixels = depthStep.apply(to: consume pixels, depth: field) }
            } else if let sixteen = filter as? any SixteenBitFilter {
                if let geometry = filter as? any GeometryFilter, field != nil {
                    field = field!.reshaped(by: geometry, pictureWidth: pixels.width, height: pixels.height)
                }
                pixels = sixteen.apply(to: consume pixels)
            } else {
                // These steps have no geometry, so the depth field stays as it is.
                var end = i + 1
                while end < steps.count, !(FilterCatalog.filter(named: steps[end].name) is any SixteenBitFilter.Type) { end += 1 }
                pixels = FilterRecipe(steps: Array(steps[i..<end])).apply(to: pixels.eightBit()).sixteenBit()
                i = end
                continue
            }
            i += 1
        }
        return pixels
    }

    /// ``apply(to:depth:)-(PixelBuffer<UInt16>,_)`` over a picture as stored, shown in
    /// `orientation`: the filtered picture, still as stored. As for 8 bits, when only the
    /// geometry steps have a direction (and none reads depth), each run of them is one
    /// resampling from stored to stored, the orientation folded in: no turning upright and
    /// back (two more passes over the picture at 6 bytes a pixel).
    public func apply(toStored image: consuming PixelBuffer<UInt16>, shownIn orientation: EXIFOrientation, depth: DepthField? = nil)
        -> PixelBuffer<UInt16>
    {
        if orientation == .up || treatsEveryDirectionAlike { return apply(to: image, depth: depth) }
        let filters = self.filters
        guard !needsDepth, filters.allSatisfy({ $0 is any GeometryFilter || type(of: $0).treatsEveryDirectionAlike }) else {
            let upright = (consume image).reoriented(orientation)
            return apply(to: upright, depth: depth).reoriented(orientation.inverse)
        }
        var pixels = image
        var i = 0
        while i < filters.count {
            guard filters[i] is any GeometryFilter else {
                // A run of steps that treat every direction alike, drawn as stored.
                var end = i + 1
                while end < filters.count, !(filters[end] is any GeometryFilter) { end += 1 }
                pixels = FilterRecipe(steps: Array(steps[i..<end])).apply(to: consume pixels)
                i = end
                continue
            }
            let placement = GeometryPlacement.run(of: filters, from: &i, width: pixels.width, height: pixels.height, shownIn: orientation)
            pixels = placement.apply(reusing: consume pixels)
        }
        return pixels
    }
}
