import CRowLoops
import Imaging

/// Highlights and shadows as Photos and Lightroom do them: local. Each pixel's tone is
/// judged by its surroundings, an edge-aware base layer (a guided filter of the luma,
/// made at a working size and read back through the pixel's own luma, as the fast guided
/// filter does), the step's tone curve moves the base, and the pixel follows by the same
/// factor. A dark area is lifted as a whole with its texture kept, where a global curve
/// would flatten it; the same gray is lifted more in a dark surrounding than in a light
/// one; and strong edges (a face against the sky) make no halo.
protocol LocalToneFilter: RegionFilter, SixteenBitFilter {
    /// The tone curve over the base's tone in 0...1.
    func curve(_ t: Double) -> Double
}

enum LocalTone {
    /// The working size's short side and the guided filter's radius there (3% of it), and
    /// its regularisation: tone changes smaller than about √ε (0.06, 16 levels of 255)
    /// count as texture, to be kept; larger ones as edges, to be followed (at 0.015, a
    /// light area beside a dark one took a 9-level halo).
    static let workingShortSide = 384
    static let radius = 12
    static let epsilon: Float = 0.004
    /// The factor a pixel is multiplied by, by its base's tone, in 1,024 steps.
    static let steps = 1024

    /// The guided filter's coefficients (A, B) at the working size, from the luma there
    /// (0...255): base = A · luma + B for the luma in 0...1.
    static func coefficients(_ summary: SmoothedImage) -> [FloatPlane] {
        let (w, h) = (summary.luma.width, summary.luma.height)
        let i = FloatPlane(width: w, height: h) { out in for k in 0..<(w * h) { out[k] = summary.luma.values[k] / 255 } }
        let ii = FloatPlane(width: w, height: h) { out in for k in 0..<(w * h) { out[k] = i.values[k] * i.values[k] } }
        let (mean, meanSquare) = (i.boxBlurred(radius: radius), ii.boxBlurred(radius: radius))
        var a = FloatPlane(width: w, height: h), b = FloatPlane(width: w, height: h)
        for k in 0..<(w * h) {
            let variance = max(0, meanSquare.values[k] - mean.values[k] * mean.values[k])
            a.values[k] = variance / (variance + epsilon)
            b.values[k] = mean.values[k] * (1 - a.values[k])
        }
        return [a.boxBlurred(radius: radius), b.boxBlurred(radius: radius)]
    }

    /// curve(base) / base: what a pixel whose base is at step i is multiplied by, kept
    /// within a quarter and four times (at black, the curve's slope there).
    static func gains(_ curve: (Double) -> Double) -> [Float] {
        (0...steps).map { i in
            let t = Double(i) / Double(steps)
            let gain = t < 1e-3 ? (curve(1e-3) / 1e-3) : curve(t) / t
            return Float(min(4, max(0.25, gain)))
        }
    }

    struct Plan: SixteenBitRegionPlan {
        let rows: UpsampledRows
        let gains: [Float]

        func draw(_ pixels: inout PixelBuffer<UInt8>, x: Int, y: Int) {
            let w = pixels.width
            gains.withUnsafeBufferPointer { gains in
                nonisolated(unsafe) let gains = gains
                rows.forEachRow(of: &pixels, x: x, y: y, extraRows: 0) { _, planes, _, o in Self.draw(row: o, width: w, planes, gains) }
            }
        }

        /// One row of RGB samples (8 or 16 bits): each pixel's base from the coefficients'
        /// row (`planes`) and its luma, and the pixel multiplied by its base's gain (CRowLoops).
        @inline(__always)
        static func draw<T: FixedWidthInteger & UnsignedInteger>(
            row o: UnsafeMutablePointer<T>, width w: Int, _ planes: [UnsafeMutablePointer<Float>], _ gains: UnsafeBufferPointer<Float>
        ) {
            switch T.bitWidth {
            case 8:
                o.withMemoryRebound(to: UInt8.self, capacity: w * 3) {
                    camlib_local_tone8($0, w, planes[0], planes[1], gains.baseAddress!, LocalTone.steps)
                }
            case 16:
                o.withMemoryRebound(to: UInt16.self, capacity: w * 3) {
                    camlib_local_tone16($0, w, planes[0], planes[1], gains.baseAddress!, LocalTone.steps)
                }
            default:
                preconditionFailure("local tone draws 8 or 16 bits a sample")
            }
        }

        /// The same over a 16-bit region whose top-left pixel is (x, y) of the picture.
        func draw(_ pixels: inout PixelBuffer<UInt16>, x: Int, y: Int) {
            let (w, h) = (pixels.width, pixels.height)
            precondition(pixels.channels == 3, "RGB")
            gains.withUnsafeBufferPointer { gains in
                pixels.components.withUnsafeMutableBufferPointer { all in
                    nonisolated(unsafe) let (gains, all) = (gains, all)
                    rows.forEachRow(x: x, y: y, width: w, height: h, extraRows: 0) { row, planes, _ in
                        Self.draw(row: all.baseAddress! + row * w * 3, width: w, planes, gains)
                    }
                }
            }
        }
    }
}

extension LocalToneFilter {
    public static var treatsEveryDirectionAlike: Bool { true }
    public var summarySize: (shortSide: Int, blurRadius: Int)? { (LocalTone.workingShortSide, 0) }

    public func plan(width: Int, height: Int, summary: SmoothedImage?) -> any RegionPlan {
        LocalTone.Plan(rows: UpsampledRows(LocalTone.coefficients(summary!), width: width, height: height), gains: LocalTone.gains(curve))
    }

    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        guard image.width > 0, image.height > 0 else { return image }
        return applyByPlan(image)
    }

    /// The base is judged on the picture rounded to 8 bits (at the working size, a
    /// sample averages many pixels); the pixels are multiplied at 16.
    public func apply(to image: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> {
        var out = image
        guard out.width > 0, out.height > 0 else { return out }
        let summary = SmoothedImage(sixteenBit: out, shortSide: LocalTone.workingShortSide, blurRadius: 0)
        let plan = LocalTone.Plan(rows: UpsampledRows(LocalTone.coefficients(summary), width: out.width, height: out.height), gains: LocalTone.gains(curve))
        plan.draw(&out, x: 0, y: 0)
        return out
    }
}
