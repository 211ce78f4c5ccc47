import Imaging

/// Portrait depth of field after the shot, as Apple Photos' Depth control gives it: a
/// lens-like blur that grows with the distance from the plane in focus, read from the
/// photo's depth or disparity map, the Portrait matte keeping the person's edges (hair,
/// glasses) sharp when the focus is on them.
///
/// The picture's pixels alone do not say how far things are: the step draws with a
/// ``DepthField`` (``FilterRecipe/apply(to:depth:)``). Renderers refuse a photo without
/// depth before they get here; a movie's frames have none, and are left as they are.
public struct DepthFilter: SixteenBitFilter {
    public static let name = "depth"
    public static let summary = "Portrait depth of field: a lens blur by the photo's depth map"
    public static let parameters = [
        FilterParameter(name: "aperture", defaultValue: 2.8, range: 1.4...16, help: "f-number: 1.4 blurs most, 16 least"),
        FilterParameter(name: "x", defaultValue: 0.5, range: 0...1, help: "focus point, a fraction of the width from the left"),
        FilterParameter(name: "y", defaultValue: 0.5, range: 0...1, help: "focus point, a fraction of the height from the top"),
    ]
    public let aperture: Double
    public let focus: (x: Double, y: Double)

    public init(parameters: [String: Double]) {
        aperture = parameters["aperture"] ?? 2.8
        focus = (parameters["x"] ?? 0.5, parameters["y"] ?? 0.5)
    }

    /// Without the photo's depth, the picture as it is (see the type's comment).
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> { image }
    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> { image }

    public func apply(to image: consuming PixelBuffer<UInt8>, depth: DepthField) -> PixelBuffer<UInt8> { blurred(image, depth: depth) }

    /// ``apply(to:depth:)`` at 16 bits a sample.
    public func apply(to image: consuming PixelBuffer<UInt16>, depth: DepthField) -> PixelBuffer<UInt16> { blurred(image, depth: depth) }

    func blurred<Sample: FixedWidthInteger & UnsignedInteger & PixelComponent>(_ image: consuming PixelBuffer<Sample>, depth: DepthField)
        -> PixelBuffer<Sample>
    {
        var pixels = image
        guard pixels.width > 0, pixels.height > 0, let blur = LensBlur(width: pixels.width, height: pixels.height, depth: depth, aperture: aperture, focus: focus)
        else { return pixels }
        blur.draw(&pixels)
        return pixels
    }
}
