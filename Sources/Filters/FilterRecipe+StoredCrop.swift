import Imaging

extension FilterRecipe {
    /// When the recipe's geometry comes first and, over a width×height picture as stored
    /// and shown in `orientation`, only cuts a rectangle out of the stored picture (crops,
    /// and turns and flips that come back to where they started), and every later step
    /// treats every direction alike: that rectangle, in stored pixels, and the later steps.
    /// The render is then the rectangle's pixels copied as they are, shown in the same
    /// orientation, drawn by the later steps (a HEIC grid too large to hold whole is
    /// cropped tile by tile this way). nil otherwise.
    public func storedCrop(width: Int, height: Int, shownIn orientation: EXIFOrientation) -> (x: Int, y: Int, width: Int, height: Int, rest: FilterRecipe)? {
        let filters = self.filters
        guard filters.first is any GeometryFilter else { return nil }
        var end = 0
        let p = GeometryPlacement.run(of: filters, from: &end, width: width, height: height, shownIn: orientation)
        let rest = FilterRecipe(steps: Array(steps[end...]))
        guard rest.treatsEveryDirectionAlike, p.exact, p.a == 1, p.b == 0, p.d == 0, p.e == 1, p.c == p.c.rounded(), p.f == p.f.rounded() else { return nil }
        let (x, y) = (Int(p.c), Int(p.f))
        guard x >= 0, y >= 0, p.width > 0, p.height > 0, x + p.width <= width, y + p.height <= height else { return nil }
        return (x, y, p.width, p.height, rest)
    }
}
