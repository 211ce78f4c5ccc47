import Imaging

/// A filter that also works on 16-bit samples (RGB, the full 0...65535 range), so a 10-bit
/// HEIC or a 16-bit PNG keeps its precision through it: the light and colour adjustments,
/// geometry, mono, noir, sepia, vignette and depth. Comic and posterize, whose output has a
/// few tones, work on 8 bits (``FilterRecipe/apply(to:depth:)-(PixelBuffer<UInt16>,_)``).
public protocol SixteenBitFilter: ImageFilter {
    /// The filtered picture, as ``ImageFilter/apply(to:)`` draws it at 8 bits.
    func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16>
}

func clampSixteen(_ v: Double) -> UInt16 {
    UInt16(max(0, min(65535, v.rounded())))
}
