import Dispatch
import Glibc
import Imaging

// The filters. Each works on 8-bit RGB in display orientation, row bands in parallel on
// every core, per-channel work through lookup tables where the maths allows.

/// Runs `body` over bands of rows (``bands(rows:startingAtMultiplesOf:)``), concurrently.
@inlinable
func forEachBand(rows: Int, startingAtMultiplesOf unit: Int = 1, _ body: (Range<Int>) -> Void) {
    let ranges = bands(rows: rows, startingAtMultiplesOf: unit)
    guard ranges.count > 1 else {
        body(0..<rows)
        return
    }
    // Bands write disjoint rows; the callers' buffers outlive this call.
    nonisolated(unsafe) let body = body
    DispatchQueue.concurrentPerform(iterations: ranges.count) { body(ranges[$0]) }
}

/// Rows split into bands, one per core (more when there are many rows), each starting
/// at a multiple of `unit`.
@inlinable
func bands(rows: Int, startingAtMultiplesOf unit: Int = 1) -> [Range<Int>] {
    let count = min(rows / unit, max(1, Cores.online * 4))
    guard count > 1 else { return [0..<rows] }
    return (0..<count).map { band in
        let start = rows * band / count / unit * unit
        let end = band == count - 1 ? rows : rows * (band + 1) / count / unit * unit
        return start..<end
    }
}

@usableFromInline
enum Cores {
    @usableFromInline static let online: Int = {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }()
}

/// Applies a per-pixel function to every 8-bit RGB pixel, in parallel, in place. Not
/// generic: a generic one, though specialised, called the transform through a
/// reabstraction thunk for every pixel, and a saturation step on a Live Photo's movie
/// took 15% of its profile instead of 9%. (16-bit pictures, rarer, take the generic one.)
@inlinable
func mapPixels(_ image: inout PixelBuffer<UInt8>, _ transform: (UInt8, UInt8, UInt8) -> (UInt8, UInt8, UInt8)) {
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

/// ``mapPixels(_:_:)`` for pictures of any sample type.
@inlinable
func mapPixels<T: PixelComponent>(_ image: inout PixelBuffer<T>, _ transform: (T, T, T) -> (T, T, T)) {
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

/// Rec. 709 luma in 8-bit fixed point (weights 54, 183, 19 of 256), of 8- or 16-bit samples.
@inlinable
func luma<T: FixedWidthInteger & UnsignedInteger>(_ r: T, _ g: T, _ b: T) -> T {
    let sum: UInt32 = 54 &* UInt32(r) &+ 183 &* UInt32(g) &+ 19 &* UInt32(b) &+ 128
    return T(truncatingIfNeeded: sum >> 8)
}

func clampByte(_ v: Double) -> UInt8 {
    UInt8(max(0, min(255, v.rounded())))
}

/// Gray by Rec. 709 luma.
public struct MonoFilter: PixelFilter, SixteenBitFilter, SixteenBitRegionPlan {
    public static let name = "mono"
    public static let summary = "gray from Rec. 709 luma, like CIPhotoEffectMono"
    public static let parameters: [FilterParameter] = []
    public init(parameters: [String: Double]) {}

    public func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        let y = luma(r, g, b)
        return (y, y, y)
    }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        mapPixels(&out) { r, g, b in
            let y = luma(r, g, b)
            return (y, y, y)
        }
        return out
    }
}

/// High-contrast black and white, like CIPhotoEffectNoir.
public struct NoirFilter: PixelFilter, SixteenBitFilter {
    public static let name = "noir"
    public static let summary = "high-contrast black and white, like CIPhotoEffectNoir"
    public static let parameters = [
        FilterParameter(name: "contrast", defaultValue: 1.5, range: 0.5...4, help: "slope of the tone curve at mid-gray")
    ]
    let contrast: Double
    let curve: [UInt8]

    public init(parameters: [String: Double]) {
        let contrast = parameters["contrast"] ?? 1.5
        self.contrast = contrast
        curve = (0..<256).map { clampByte(Self.tone(Double($0) / 255, contrast: contrast) * 255) }
    }

    /// A smooth S-curve through mid-gray: steeper in the middle, rolled off at the ends.
    static func tone(_ t: Double, contrast: Double) -> Double {
        let s = 0.5 + (t - 0.5) * contrast
        return s < 0.5 ? 0.5 * pow(max(0, 2 * s), 1.25) : 1 - 0.5 * pow(max(0, 2 * (1 - s)), 1.25)
    }

    public func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        let y = curve[Int(luma(r, g, b))]
        return (y, y, y)
    }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        SixteenBitPlan(self).draw(&out, x: 0, y: 0)
        return out
    }

    public func sixteenBitPlan(width: Int, height: Int, summary: SmoothedImage?) -> (any SixteenBitRegionPlan)? { SixteenBitPlan(self) }

    /// The filter with its tone curve at 16 bits (65,536 entries, made once for every
    /// region of a picture).
    struct SixteenBitPlan: SixteenBitRegionPlan {
        let filter: NoirFilter
        let table: [UInt16]

        init(_ filter: NoirFilter) {
            self.filter = filter
            table = (0..<65536).map { clampSixteen(NoirFilter.tone(Double($0) / 65535, contrast: filter.contrast) * 65535) }
        }

        func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) { filter.draw(&pixels, x: x, y: y) }

        func draw(_ pixels: inout PixelBuffer<UInt16>, x: Int, y: Int) {
            table.withUnsafeBufferPointer { lut in
                nonisolated(unsafe) let lut = lut
                mapPixels(&pixels) { r, g, b in
                    let y = lut[Int(luma(r, g, b))]
                    return (y, y, y)
                }
            }
        }
    }
}

/// Brown-toned, like CISepiaTone.
public struct SepiaFilter: PixelFilter, SixteenBitFilter, SixteenBitRegionPlan {
    public static let name = "sepia"
    public static let summary = "brown-toned, like CISepiaTone"
    public static let parameters = [
        FilterParameter(name: "intensity", defaultValue: 1, range: 0...1, help: "0 leaves the photo, 1 is full sepia")
    ]
    /// 3x3 matrix in 1/1024, mixed with identity by intensity (a value, not an array:
    /// read for every pixel without reference counting).
    let weights: SIMD16<Int32>

    public init(parameters: [String: Double]) {
        let k = parameters["intensity"] ?? 1
        let sepia: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        var weights = SIMD16<Int32>()
        for i in 0..<9 { weights[i] = Int32(((1 - k) * identity[i] + k * sepia[i]) * 1024) }
        self.weights = weights
    }

    public func transform(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        let m = weights
        let (r, g, b) = (Int32(r), Int32(g), Int32(b))
        func channel(_ row: Int) -> UInt8 {
            UInt8(clamping: (m[row * 3] * r + m[row * 3 + 1] * g + m[row * 3 + 2] * b + 512) >> 10)
        }
        return (channel(0), channel(1), channel(2))
    }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        let m = weights
        mapPixels(&out) { r, g, b in
            let (r, g, b) = (Int64(r), Int64(g), Int64(b))
            func channel(_ row: Int) -> UInt16 {
                UInt16(clamping: (Int64(m[row * 3]) * r + Int64(m[row * 3 + 1]) * g + Int64(m[row * 3 + 2]) * b + 512) >> 10)
            }
            return (channel(0), channel(1), channel(2))
        }
        return out
    }
}

/// Few tones per channel, like CIColorPosterize; the bands of a smooth sky stay whole.
///
/// Quantising each pixel as it is breaks a slow gradient's band borders into speckles
/// wherever sensor noise or fine texture straddles a step. So where a pixel is within
/// half a step of the picture softened at a working size (`SmoothedImage`), the softened
/// value decides its tone, and band borders follow smooth curves; where it differs more
/// (an edge, real detail) its own value decides, and detail stays crisp.
public struct PosterizeFilter: RegionFilter {
    /// Pixel by pixel, beside a softened picture made the same way along x and y.
    public static let treatsEveryDirectionAlike = true
    public static let name = "posterize"
    public static let summary = "a few flat tones per channel, like CIColorPosterize"
    public static let parameters = [
        FilterParameter(name: "levels", defaultValue: 6, range: 2...64, help: "tones per channel")
    ]
    let table: [UInt8]
    /// Differences from the softened picture smaller than this (half a step) are noise.
    let noise: Float
    static let workingShortSide = 720

    public init(parameters: [String: Double]) {
        let levels = Int(parameters["levels"] ?? 6)
        table = Self.table(levels: levels)
        noise = 255 / Float(max(2, levels) - 1) / 2
    }

    static func table(levels: Int) -> [UInt8] {
        let steps = Double(max(2, levels) - 1)
        return (0..<256).map { clampByte((Double($0) / 255 * steps).rounded() / steps * 255) }
    }

    public var summarySize: (shortSide: Int, blurRadius: Int)? { (Self.workingShortSide, 3) }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        guard image.width > 0, image.height > 0 else { return image }
        return applyByPlan(image)
    }

    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan {
        let soft = summary!
        return Plan(rows: UpsampledRows([soft.red, soft.green, soft.blue], width: width, height: height), table: table, noise: noise)
    }

    struct Plan: RegionPlan {
        let rows: UpsampledRows
        let table: [UInt8]
        let noise: Float

        func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) {
            let (w, noise) = (pixels.width, noise)
            // In place: each pixel is read, then written with its tone.
            table.withUnsafeBufferPointer { lut in
                rows.forEachRow(of: &pixels, x: x, y: y, extraRows: 0) { _, planes, _, o in
                    for x in 0..<w {
                        let r = Float(o[x * 3]), g = Float(o[x * 3 + 1]), b = Float(o[x * 3 + 2])
                        let sr = planes[0][x], sg = planes[1][x], sb = planes[2][x]
                        let smooth = max(abs(r - sr), max(abs(g - sg), abs(b - sb))) < noise
                        o[x * 3] = lut[Int(smooth ? sr + 0.5 : r)]
                        o[x * 3 + 1] = lut[Int(smooth ? sg + 0.5 : g)]
                        o[x * 3 + 2] = lut[Int(smooth ? sb + 0.5 : b)]
                    }
                }
            }
        }
    }
}

/// Darker towards the corners, like CIVignette.
public struct VignetteFilter: RegionFilter, SixteenBitFilter {
    /// By the distance from the centre, over the half diagonal.
    public static let treatsEveryDirectionAlike = true
    public static let name = "vignette"
    public static let summary = "darker towards the corners, like CIVignette"
    public static let parameters = [
        FilterParameter(name: "strength", defaultValue: 0.5, range: 0...1, help: "how dark the corners get (1: black)"),
        FilterParameter(name: "radius", defaultValue: 0.5, range: 0...0.99, help: "where darkening starts, in centre-to-corner distances"),
    ]
    let strength: Double
    let radius: Double

    public init(parameters: [String: Double]) {
        strength = parameters["strength"] ?? 0.5
        radius = parameters["radius"] ?? 0.5
    }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> { applyByPlan(image) }

    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        Plan(width: out.width, height: out.height, strength: strength, radius: radius).draw(&out, x: 0, y: 0)
        return out
    }

    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan {
        Plan(width: width, height: height, strength: strength, radius: radius)
    }

    struct Plan: SixteenBitRegionPlan {
        let width: Int, height: Int
        let strength: Double, radius: Double

        /// The whole picture's centre and half diagonal: distances are measured from there.
        var centre: (x: Double, y: Double, halfDiagonal: Double) {
            let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
            return (cx, cy, max(1, (cx * cx + cy * cy).squareRoot()))
        }

        /// What a pixel at `distance` (a fraction of the half diagonal) is multiplied by:
        /// a smoothstep falloff from `radius` out.
        @inline(__always)
        func factor(distance d: Double) -> Double {
            let t = max(0, min(1, (d - radius) / (1 - radius)))
            return 1 - strength * t * t * (3 - 2 * t)
        }

        func draw(_ pixels: inout PixelBuffer<UInt8>, x left: Int, y top: Int) {
            let (w, h) = (pixels.width, pixels.height)
            // By the distance from the whole picture's centre.
            let (cx, cy, halfDiagonal) = centre
            let dx2 = (0..<w).map { x in (Double(left + x) - cx) * (Double(left + x) - cx) }
            // In place: each pixel is read, then written darkened.
            pixels.components.withUnsafeMutableBufferPointer { pixels in
                nonisolated(unsafe) let pixels = pixels
                dx2.withUnsafeBufferPointer { dx2 in
                    forEachBand(rows: h) { rows in
                        for y in rows {
                            let dy2 = (Double(top + y) - cy) * (Double(top + y) - cy)
                            for x in 0..<w {
                                // In 1/256 steps.
                                let factor = UInt32((self.factor(distance: (dx2[x] + dy2).squareRoot() / halfDiagonal) * 256).rounded())
                                let i = (y * w + x) * 3
                                pixels[i] = UInt8((UInt32(pixels[i]) * factor + 128) >> 8)
                                pixels[i + 1] = UInt8((UInt32(pixels[i + 1]) * factor + 128) >> 8)
                                pixels[i + 2] = UInt8((UInt32(pixels[i + 2]) * factor + 128) >> 8)
                            }
                        }
                    }
                }
            }
        }

        /// The same at 16 bits, each sample multiplied by the factor itself.
        func draw(_ pixels: inout PixelBuffer<UInt16>, x left: Int, y top: Int) {
            let (w, h) = (pixels.width, pixels.height)
            let (cx, cy, halfDiagonal) = centre
            pixels.components.withUnsafeMutableBufferPointer { pixels in
                nonisolated(unsafe) let pixels = pixels
                forEachBand(rows: h) { rows in
                    for y in rows {
                        let dy2 = (Double(top + y) - cy) * (Double(top + y) - cy)
                        for x in 0..<w {
                            let dx = Double(left + x) - cx
                            let factor = self.factor(distance: (dx * dx + dy2).squareRoot() / halfDiagonal)
                            let i = (y * w + x) * 3
                            for c in i..<(i + 3) { pixels[c] = clampSixteen(Double(pixels[c]) * factor) }
                        }
                    }
                }
            }
        }
    }
}
