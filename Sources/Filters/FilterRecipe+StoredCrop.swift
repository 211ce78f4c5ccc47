import Imaging

extension FilterRecipe {
    /// When the recipe's geometry comes first (after steps that look at one pixel at a
    /// time, if any: those give the same pixels whether a copy of some of them is cut out
    /// before or after) and, over a width×height picture as stored and shown in
    /// `orientation`, only cuts a rectangle out of the stored picture and turns or mirrors
    /// it whole (crops, quarter turns, flips; no straighten), and every other step treats
    /// every direction alike: that rectangle, in stored pixels, the orientation to show
    /// it in (`orientation` when the geometry turns nothing), and the other steps in their
    /// order. The render is then the rectangle's pixels copied as they are, shown in that
    /// orientation (a HEIF's irot/imir), drawn by the other steps: a HEIC grid too large
    /// to hold whole is cropped and turned tile by tile this way. nil otherwise.
    public func storedCrop(width: Int, height: Int, shownIn orientation: EXIFOrientation)
        -> (x: Int, y: Int, width: Int, height: Int, orientation: EXIFOrientation, rest: FilterRecipe)?
    {
        guard let (filters, start, rest) = leadingGeometry() else { return nil }
        // The way of showing the output that leaves its samples where they were stored.
        for shown in [orientation] + EXIFOrientation.allCases.filter({ $0 != orientation }) {
            var i = start
            let p = GeometryPlacement.run(of: filters, from: &i, width: width, height: height, shownIn: orientation, storedFor: shown)
            guard p.exact, p.a == 1, p.b == 0, p.d == 0, p.e == 1, p.c == p.c.rounded(), p.f == p.f.rounded() else { continue }
            let (x, y) = (Int(p.c), Int(p.f))
            guard x >= 0, y >= 0, p.width > 0, p.height > 0, x + p.width <= width, y + p.height <= height else { return nil }
            return (x, y, p.width, p.height, shown, rest)
        }
        return nil
    }

    /// When the recipe's geometry comes first as ``storedCrop(width:height:shownIn:)``
    /// asks but interpolates (a straighten): where each pixel of the output, stored as
    /// the original is (shown in `orientation`), comes from in the width×height stored
    /// picture, and the other steps. Any rectangle of the output is then drawn from the
    /// pixels ``GeometryPlacement/sourceRegion(width:height:)`` of its
    /// ``GeometryPlacement/part(x:y:width:height:)`` names, so a picture too large to
    /// hold whole is straightened tile by tile or band by band. nil otherwise.
    public func storedResampling(width: Int, height: Int, shownIn orientation: EXIFOrientation) -> (placement: GeometryPlacement, rest: FilterRecipe)? {
        guard let (filters, start, rest) = leadingGeometry() else { return nil }
        var i = start
        return (GeometryPlacement.run(of: filters, from: &i, width: width, height: height, shownIn: orientation), rest)
    }

    /// The filters, where the geometry run that ``storedCrop(width:height:shownIn:)``
    /// takes starts, and the other steps, when they treat every direction alike.
    private func leadingGeometry() -> (filters: [any ImageFilter], start: Int, rest: FilterRecipe)? {
        let filters = self.filters
        let start = filters.prefix { $0 is any PixelFilter || $0 is any ChannelCurveFilter }.count
        guard start < filters.count, filters[start] is any GeometryFilter else { return nil }
        let end = filters[start...].firstIndex { !($0 is any GeometryFilter) } ?? filters.count
        let rest = FilterRecipe(steps: Array(steps[..<start] + steps[end...]))
        return rest.treatsEveryDirectionAlike ? (filters, start, rest) : nil
    }
}
