import CRowLoops
import Foundation
import Imaging

/// Where each pixel of a reshaped picture comes from: an affine map from the output's
/// pixel centres to points of the input (continuous coordinates, a pixel's centre at
/// i + 0.5), and the output's size. Crops, quarter turns and flips land on pixel centres
/// and copy samples exactly; a straighten falls between them and is interpolated.
public struct GeometryPlacement: Sendable, Equatable {
    public var width: Int, height: Int
    /// input x = a·x + b·y + c, input y = d·x + e·y + f (x, y: the output's continuous coordinates).
    var a, b, c, d, e, f: Double
    /// Whether every output centre lands on an input centre (copied, not interpolated).
    var exact: Bool

    /// `picture` reshaped: any number of channels (a photo, a depth map, a matte). One
    /// entry point per sample type, so each is compiled for its type here (a generic one
    /// called from another module ran unspecialised, every sample through a witness
    /// table: a straighten cost 6.6 s more than a mono on IMG_3582's Live Photo).
    public func apply(to picture: borrowing PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        exact || !fitsFixedPoint(width: picture.width, height: picture.height) ? resample(picture) : bilinearBytes(picture)
    }

    /// Whether `bilinearBytes` can place a width×height input's points in 16.16 fixed point.
    func fitsFixedPoint(width w: Int, height h: Int) -> Bool {
        (2...16384).contains(w) && (2...16384).contains(h) && abs(a) <= 64 && abs(d) <= 64
    }
    public func apply(to picture: borrowing PixelBuffer<UInt16>) -> PixelBuffer<UInt16> { resample(picture) }
    public func apply(to picture: borrowing PixelBuffer<Float>) -> PixelBuffer<Float> { resample(picture) }

    @inline(__always)
    func resample<T: PixelComponent & Resampled>(_ picture: borrowing PixelBuffer<T>) -> PixelBuffer<T> {
        let (w, h, ch) = (picture.width, picture.height, picture.channels)
        return drawnAnew(picture) { rows, src, dst in resampleRows(rows, of: src, width: w, height: h, channels: ch, into: dst) }
    }

    /// The output drawn by `draw` (output rows, the input's samples, where the first of
    /// those rows goes) into a new buffer, its bands on every core; all zeros when the
    /// input or the output is empty.
    @inline(__always)
    func drawnAnew<T: PixelComponent>(
        _ picture: borrowing PixelBuffer<T>, rows draw: (_ rows: Range<Int>, _ source: UnsafeBufferPointer<T>, _ into: UnsafeMutablePointer<T>) -> Void
    ) -> PixelBuffer<T> {
        let ch = picture.channels
        guard picture.width > 0, picture.height > 0, width > 0, height > 0 else { return PixelBuffer<T>(width: width, height: height, channels: ch) }
        let rowLength = width * ch
        return picture.components.withUnsafeBufferPointer { src in
            PixelBuffer<T>(width: width, height: height, channels: ch) { dst in
                nonisolated(unsafe) let (src, dst) = (src, dst)
                forEachBand(rows: height) { rows in draw(rows, src, dst.baseAddress! + rows.lowerBound * rowLength) }
            }
        }
    }

    /// Output rows `rows` of a w×h picture with `ch` channels (`src`), interpolated in
    /// Double a pixel at a time (exact placements copied), written from `dst` on.
    @inline(__always)
    func resampleRows<T: PixelComponent & Resampled>(
        _ rows: Range<Int>, of src: UnsafeBufferPointer<T>, width w: Int, height h: Int, channels ch: Int, into dst: UnsafeMutablePointer<T>
    ) {
        let (outW, a, b, c, d, e, f, exact) = (width, a, b, c, d, e, f, exact)
        for y in rows {
            let oy = Double(y) + 0.5
            for x in 0..<outW {
                let ox = Double(x) + 0.5
                // The input point, in sample indices (centre at i).
                let sx = a * ox + b * oy + c - 0.5, sy = d * ox + e * oy + f - 0.5
                let o = ((y - rows.lowerBound) * outW + x) * ch
                if exact {
                    let ix = min(w - 1, max(0, Int(sx.rounded()))), iy = min(h - 1, max(0, Int(sy.rounded())))
                    for k in 0..<ch { dst[o + k] = src[(iy * w + ix) * ch + k] }
                    continue
                }
                let fx = min(Double(w - 1), max(0, sx)), fy = min(Double(h - 1), max(0, sy))
                let x0 = Int(fx), y0 = Int(fy)
                let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
                let tx = fx - Double(x0), ty = fy - Double(y0)
                for k in 0..<ch {
                    let top = src[(y0 * w + x0) * ch + k].sampleValue * (1 - tx) + src[(y0 * w + x1) * ch + k].sampleValue * tx
                    let bottom = src[(y1 * w + x0) * ch + k].sampleValue * (1 - tx) + src[(y1 * w + x1) * ch + k].sampleValue * tx
                    dst[o + k] = T(sampleValue: top * (1 - ty) + bottom * ty)
                }
            }
        }
    }

    /// 8-bit samples interpolated in C (`camlib_bilinear_rows`: fixed point, eight pixels
    /// at a time with AVX2): a photo and every movie frame go through here, and the loop
    /// in Swift (Double coordinates, a pixel at a time) took 28% of a straightened Live
    /// Photo movie's edit. Inputs within 16384 pixels (`fitsFixedPoint`).
    func bilinearBytes(_ picture: borrowing PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        let (w, h, ch) = (picture.width, picture.height, picture.channels)
        return drawnAnew(picture) { rows, src, dst in bilinearRows(rows, of: src, width: w, height: h, channels: ch, into: dst) }
    }

    /// Output rows `rows` through `camlib_bilinear_rows`, written from `dst` on.
    func bilinearRows(_ rows: Range<Int>, of src: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, channels ch: Int, into dst: UnsafeMutablePointer<UInt8>) {
        guard !rows.isEmpty, width > 0 else { return }
        [a, b, c, d, e, f].withUnsafeBufferPointer { placement in
            camlib_bilinear_rows(src.baseAddress, w, h, ch, width, rows.lowerBound, rows.count, placement.baseAddress, dst)
        }
    }

    /// The pixels of a width×height input this placement reads (each point's neighbours
    /// and a pixel more included), clamped to the input.
    public func sourceRegion(width w: Int, height h: Int) -> PixelRegion {
        let corners = [(0.5, 0.5), (Double(width) - 0.5, 0.5), (0.5, Double(height) - 0.5), (Double(width) - 0.5, Double(height) - 0.5)]
        let xs = corners.map { a * $0.0 + b * $0.1 + c - 0.5 }, ys = corners.map { d * $0.0 + e * $0.1 + f - 0.5 }
        let left = max(0, min(w, Int(xs.min()!.rounded(.down)) - 1)), right = max(left, min(w, Int(xs.max()!.rounded(.up)) + 2))
        let top = max(0, min(h, Int(ys.min()!.rounded(.down)) - 1)), bottom = max(top, min(h, Int(ys.max()!.rounded(.up)) + 2))
        return PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The placement of the output's width×height rectangle whose top-left pixel is (x, y) alone.
    public func part(x: Int, y: Int, width: Int, height: Int) -> GeometryPlacement {
        var part = self
        (part.width, part.height) = (width, height)
        part.c += a * Double(x) + b * Double(y)
        part.f += d * Double(x) + e * Double(y)
        return part
    }

    /// This placement over the pixels of `region` alone, taken out of its input.
    public func within(_ region: PixelRegion) -> GeometryPlacement {
        var moved = self
        moved.c -= Double(region.x)
        moved.f -= Double(region.y)
        return moved
    }

    /// The identity over a width×height picture.
    static func identity(width: Int, height: Int) -> GeometryPlacement {
        GeometryPlacement(width: width, height: height, a: 1, b: 0, c: 0, d: 0, e: 1, f: 0, exact: true)
    }

    /// This placement after `earlier` (whose output is this one's input): one map from the
    /// last output to the first input, so a stack of geometry resamples once.
    func after(_ earlier: GeometryPlacement) -> GeometryPlacement {
        GeometryPlacement(
            width: width, height: height,
            a: earlier.a * a + earlier.b * d, b: earlier.a * b + earlier.b * e, c: earlier.a * c + earlier.b * f + earlier.c,
            d: earlier.d * a + earlier.e * d, e: earlier.d * b + earlier.e * e, f: earlier.d * c + earlier.e * f + earlier.f,
            exact: exact && earlier.exact)
    }
}

/// A sample type geometry can interpolate.
public protocol Resampled {
    var sampleValue: Double { get }
    init(sampleValue: Double)
}

extension UInt8: Resampled {
    public var sampleValue: Double { Double(self) }
    public init(sampleValue v: Double) { self = UInt8(Swift.max(0, Swift.min(255, v.rounded()))) }
}

extension UInt16: Resampled {
    public var sampleValue: Double { Double(self) }
    public init(sampleValue v: Double) { self = UInt16(Swift.max(0, Swift.min(65535, v.rounded()))) }
}

extension Float: Resampled {
    public var sampleValue: Double { Double(self) }
    public init(sampleValue v: Double) { self = Float(v) }
}

/// A step that changes the picture's shape (crop, rotate, flip, straighten), in display
/// orientation. Its placement is computed for any size, so a depth map or a matte of
/// another resolution is reshaped with the photo and still lines up with it.
public protocol GeometryFilter: SixteenBitFilter {
    func placement(width: Int, height: Int) -> GeometryPlacement
}

extension GeometryFilter {
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        placement(width: image.width, height: image.height).apply(reusing: image)
    }
    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        placement(width: image.width, height: image.height).apply(reusing: image)
    }
}

/// Rounds a length in pixels to an even number of at least 2 (4:2:0 video and HEIC code
/// pixels in pairs), within `limit`.
func evenPixels(_ length: Double, limit: Int) -> Int {
    let even = Int((length / 2).rounded()) * 2
    return max(min(limit, 2), min(limit - limit % 2, even))
}

/// A rectangle of the picture, in fractions of its displayed width and height; with an
/// aspect ratio, the largest rectangle of that ratio centred in it.
public struct CropFilter: GeometryFilter {
    public static let name = "crop"
    public static let summary = "keeps a rectangle (fractions of the photo), or the largest of a ratio"
    public static let parameters = [
        FilterParameter(name: "x", defaultValue: 0, range: 0...1, help: "left edge, a fraction of the width"),
        FilterParameter(name: "y", defaultValue: 0, range: 0...1, help: "top edge, a fraction of the height"),
        FilterParameter(name: "width", defaultValue: 1, range: 0.01...1, help: "a fraction of the width"),
        FilterParameter(name: "height", defaultValue: 1, range: 0.01...1, help: "a fraction of the height"),
        FilterParameter(name: "aspect", defaultValue: 0, range: 0...100, help: "width:height (1:1, 4:3, 16:9); 0: free", format: .ratio),
    ]
    let x, y, width, height, aspect: Double

    public init(parameters: [String: Double]) {
        x = parameters["x"] ?? 0
        y = parameters["y"] ?? 0
        width = parameters["width"] ?? 1
        height = parameters["height"] ?? 1
        aspect = parameters["aspect"] ?? 0
    }

    public static func check(_ parameters: [String: Double]) -> String? {
        let (x, y, w, h) = (parameters["x"] ?? 0, parameters["y"] ?? 0, parameters["width"] ?? 1, parameters["height"] ?? 1)
        if x + w > 1.000001 { return "x + width is \(x + w), beyond the photo's right edge (1)" }
        if y + h > 1.000001 { return "y + height is \(y + h), beyond the photo's bottom edge (1)" }
        return nil
    }

    public func placement(width W: Int, height H: Int) -> GeometryPlacement {
        var (left, top, w, h) = (x * Double(W), y * Double(H), width * Double(W), height * Double(H))
        if aspect > 0 {
            // The largest rectangle of the ratio inside the given one, centred in it.
            let (fitW, fitH) = w / h > aspect ? (h * aspect, h) : (w, w / aspect)
            (left, top, w, h) = (left + (w - fitW) / 2, top + (h - fitH) / 2, fitW, fitH)
        }
        let outW = evenPixels(w, limit: W), outH = evenPixels(h, limit: H)
        let l = max(0, min(W - outW, Int((left + (w - Double(outW)) / 2).rounded())))
        let t = max(0, min(H - outH, Int((top + (h - Double(outH)) / 2).rounded())))
        return GeometryPlacement(width: outW, height: outH, a: 1, b: 0, c: Double(l), d: 0, e: 1, f: Double(t), exact: true)
    }
}

/// A quarter turn (or two, or three), clockwise for positive degrees.
public struct RotateFilter: GeometryFilter {
    public static let name = "rotate"
    public static let summary = "turns the photo by quarter turns, clockwise for positive degrees"
    public static let parameters = [
        FilterParameter(name: "degrees", defaultValue: 90, range: -270...270, help: "a multiple of 90; positive turns clockwise", multipleOf: 90)
    ]
    let quarters: Int

    public init(parameters: [String: Double]) {
        quarters = ((Int((parameters["degrees"] ?? 90) / 90) % 4) + 4) % 4
    }

    public func placement(width W: Int, height H: Int) -> GeometryPlacement {
        let (w, h) = (Double(W), Double(H))
        switch quarters {
        // Clockwise: the output's top-left is the input's bottom-left.
        case 1: return GeometryPlacement(width: H, height: W, a: 0, b: 1, c: 0, d: -1, e: 0, f: h, exact: true)
        case 2: return GeometryPlacement(width: W, height: H, a: -1, b: 0, c: w, d: 0, e: -1, f: h, exact: true)
        case 3: return GeometryPlacement(width: H, height: W, a: 0, b: -1, c: w, d: 1, e: 0, f: 0, exact: true)
        default: return .identity(width: W, height: H)
        }
    }
}

/// A mirror image, left to right or top to bottom.
public struct FlipFilter: GeometryFilter {
    public static let name = "flip"
    public static let summary = "mirrors the photo left to right, or top to bottom"
    public static let parameters = [
        FilterParameter(name: "direction", defaultValue: 0, range: 0...1, help: "which way the photo mirrors", choices: ["horizontal", "vertical"])
    ]
    let vertical: Bool

    public init(parameters: [String: Double]) {
        vertical = (parameters["direction"] ?? 0) == 1
    }

    public func placement(width W: Int, height H: Int) -> GeometryPlacement {
        vertical
            ? GeometryPlacement(width: W, height: H, a: 1, b: 0, c: 0, d: 0, e: -1, f: Double(H), exact: true)
            : GeometryPlacement(width: W, height: H, a: -1, b: 0, c: Double(W), d: 0, e: 1, f: 0, exact: true)
    }
}

/// A small turn by any angle to level a horizon, cropped to the largest rectangle of the
/// photo's shape that the turned photo covers: no empty corners.
public struct StraightenFilter: GeometryFilter {
    public static let name = "straighten"
    public static let summary = "levels a horizon: turns and crops off the empty corners"
    public static let parameters = [
        FilterParameter(name: "degrees", defaultValue: 0, range: -45...45, help: "positive turns clockwise")
    ]
    let radians: Double

    public init(parameters: [String: Double]) {
        radians = (parameters["degrees"] ?? 0) * .pi / 180
    }

    /// The scale of the largest same-shaped rectangle inside a W×H picture turned by the angle.
    static func scale(width w: Double, height h: Double, radians: Double) -> Double {
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        return min(w / (w * c + h * s), h / (w * s + h * c))
    }

    public func placement(width W: Int, height H: Int) -> GeometryPlacement {
        guard radians != 0 else { return .identity(width: W, height: H) }
        let (w, h) = (Double(W), Double(H))
        let k = Self.scale(width: w, height: h, radians: radians)
        // A hair inside, so interpolation at the very edge reads the photo, never past it.
        let outW = evenPixels(w * k - 1, limit: W), outH = evenPixels(h * k - 1, limit: H)
        // Output point p, about its centre, turned back by the angle, about the input's centre
        // (on a screen, y down: [[c, -s], [s, c]] turns clockwise; its inverse is taken).
        let (c, s) = (cos(radians), sin(radians))
        let (ox, oy) = (Double(outW) / 2, Double(outH) / 2)
        return GeometryPlacement(
            width: outW, height: outH, a: c, b: s, c: w / 2 - c * ox - s * oy, d: -s, e: c, f: h / 2 + s * ox - c * oy, exact: false)
    }
}

extension FilterRecipe {
    /// Whether a step changes the picture's shape.
    public var changesGeometry: Bool {
        steps.contains { FilterCatalog.filter(named: $0.name) is any GeometryFilter.Type }
    }

    /// The recipe's geometry alone, over a picture of width×height (display orientation):
    /// where the render's pixels come from. A depth map or matte of any resolution is
    /// reshaped by the placement made for its own size.
    public func geometry(width: Int, height: Int) -> GeometryPlacement {
        var placement = GeometryPlacement.identity(width: width, height: height)
        for step in steps {
            guard let filter = FilterCatalog.filter(named: step.name)?.init(parameters: step.parameters) as? any GeometryFilter else { continue }
            placement = filter.placement(width: placement.width, height: placement.height).after(placement)
        }
        return placement
    }
}
