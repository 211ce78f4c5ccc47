import Imaging

extension FilterRecipe {
    /// The recipe over a picture as stored, shown in `orientation`: the filtered picture,
    /// still as stored. Filters look at a picture upright; when every step treats every
    /// direction alike (``treatsEveryDirectionAlike``), the stored picture is filtered as
    /// it is, without turning it upright and back (two copies of a 24-megapixel still, two
    /// of every movie frame).
    public func apply(toStored image: consuming PixelBuffer<UInt8>, shownIn orientation: EXIFOrientation) -> PixelBuffer<UInt8> {
        if orientation == .up || treatsEveryDirectionAlike { return apply(to: image) }
        let upright = (consume image).applying(orientation)
        return apply(to: upright).applying(orientation.inverse)
    }
}
