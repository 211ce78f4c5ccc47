import Imaging

/// A filter that also works on 16-bit samples (RGB, the full 0...65535 range), so a 10-bit
/// HEIC or a 16-bit PNG keeps its precision through it: the light and colour adjustments,
/// geometry, mono, noir, sepia, vignette and depth. Comic and posterize, whose output has a
/// few tones, work on 8 bits (``FilterRecipe/apply(to:depth:)-(PixelBuffer<UInt16>,_)``).
public protocol SixteenBitFilter: ImageFilter {
    /// The filtered picture, as ``ImageFilter/apply(to:)`` draws it at 8 bits.
    func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16>
}

/// Applies a per-pixel function to every 16-bit RGB pixel, in parallel, in place.
@inlinable
func mapPixels(_ image: inout PixelBuffer<UInt16>, _ transform: (UInt16, UInt16, UInt16) -> (UInt16, UInt16, UInt16)) {
    precondition(image.channels == 3, "filters take RGB")
    let (w, h) = (image.width, image.height)
    image.components.withUnsafeMutableBufferPointer { pixels in
        nonisolated(unsafe) let pixels = pixels
        forEachBand(rows: h) { rows in
            for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                let (r, g, b) = transform(pixels[i * 3], pixels[i * 3 + 1], pixels[i * 3 + 2])
                pixels[i * 3] = r
                pixels[i * 3 + 1] = g
                pixels[i * 3 + 2] = b
            }
        }
    }
}

/// Rec. 709 luma of 16-bit samples, with the 8-bit ``luma(_:_:_:)``'s weights.
@inlinable
func luma(_ r: UInt16, _ g: UInt16, _ b: UInt16) -> UInt16 {
    let sum: UInt32 = 54 &* UInt32(r) &+ 183 &* UInt32(g) &+ 19 &* UInt32(b) &+ 128
    return UInt16(truncatingIfNeeded: sum >> 8)
}

func clampSixteen(_ v: Double) -> UInt16 {
    UInt16(max(0, min(65535, v.rounded())))
}
