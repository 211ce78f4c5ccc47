import Foundation
import Imaging

/// The blur a depth step draws over one picture.
///
/// - Each pixel's blur radius comes from its nearness, normalised over the photo (its 2nd
///   to 98th percentile span 0 to 1): `k · (|n − n_focus| − 0.03)`, with k = 2% of the
///   picture's short side at f/2.8, in proportion to 1/f-number (a lens's circle of
///   confusion grows with the difference in disparity, and with the aperture). So a
///   preview and the full-size render look alike. When the focus point is on the Portrait
///   matte, the matte holds the person's radius at 0.
/// - The picture is blurred in linear light (a bright light spreads as a lens spreads it)
///   at a few radii, each a factor of two apart, on a pyramid of reduced copies (the first
///   with at most 3.5 megapixels, so memory stays bounded for any photo); each pixel mixes
///   the two copies around its own radius, or its own value and the finest copy.
/// - A copy gathers only pixels at least half as blurred as it is (the finest, every
///   pixel blurred at all: a normalised blur, each pixel weighted by how blurred it is), so
///   a sharp subject's colour does not bleed into the blurred background around it: no
///   halo.
struct LensBlur {
    let width: Int, height: Int
    /// Each pixel's blur radius in picture pixels, at the depth map's resolution, before the matte.
    let radius: PixelBuffer<Float>
    /// The Portrait matte, when the focus point is on it.
    let matte: PixelBuffer<Float>?
    let levels: [Level]

    /// A reduced, blurred copy: RGB in linear light premultiplied by the weight, and the
    /// weight, interleaved.
    struct Level {
        /// Picture pixels per sample.
        let scale: Int
        /// The blur radius the copy stands for, in picture pixels (twice its Gaussian's σ).
        let reach: Float
        let width: Int, height: Int
        var samples: [Float]
    }

    /// The largest first copy of the pyramid, in pixels.
    static let baseLimit = 3_500_000
    /// Normalised nearness within this of the focus stays sharp (the depth map's noise).
    static let inFocus: Float = 0.03
    /// Blur radius, as a fraction of the short side, at f/2.8 for the whole nearness span.
    static let reachAtF28 = 0.02

    /// nil when nothing would be blurred (a flat depth map, or an aperture that blurs less
    /// than a pixel).
    init?(width: Int, height: Int, depth: DepthField, aperture: Double, focus: (x: Double, y: Double)) {
        let near = depth.nearness
        guard near.width > 0, near.height > 0 else { return nil }
        (self.width, self.height) = (width, height)
        // The nearness's span, from a sample of at most 65,536 values.
        let step = max(1, near.components.count / 65_536)
        var sample = stride(from: 0, to: near.components.count, by: step).map { near.components[$0] }.filter(\.isFinite)
        sample.sort()
        guard sample.count > 1 else { return nil }
        let lo = sample[sample.count * 2 / 100], hi = sample[sample.count * 98 / 100]
        guard hi - lo > 1e-6 else { return nil }
        let span = hi - lo
        func normalised(_ v: Float) -> Float { v.isFinite ? min(1, max(0, (v - lo) / span)) : 0 }
        // The plane in focus: the median nearness around the focus point.
        let cx = min(near.width - 1, Int(focus.x * Double(near.width))), cy = min(near.height - 1, Int(focus.y * Double(near.height)))
        let half = max(1, min(near.width, near.height) / 50)
        var around: [Float] = []
        for y in max(0, cy - half)...min(near.height - 1, cy + half) {
            for x in max(0, cx - half)...min(near.width - 1, cx + half) { around.append(normalised(near.components[y * near.width + x])) }
        }
        around.sort()
        let focusNearness = around[around.count / 2]
        let k = Float(Double(min(width, height)) * Self.reachAtF28 * 2.8 / aperture)
        var radius = PixelBuffer<Float>(width: near.width, height: near.height, channels: 1)
        var largest: Float = 0
        for i in 0..<near.components.count {
            let r = k * max(0, abs(normalised(near.components[i]) - focusNearness) - Self.inFocus)
            radius.components[i] = r
            largest = max(largest, r)
        }
        guard largest >= 0.5 else { return nil }
        self.radius = radius
        if let m = depth.matte, m.width > 0, m.height > 0,
            Self.bilinear(m, x: focus.x * Double(m.width) - 0.5, y: focus.y * Double(m.height) - 0.5) >= 0.5
        {
            matte = m
        } else {
            matte = nil
        }
        levels = Self.pyramid(width: width, height: height, largest: largest)
        // (The levels' samples are filled by `draw`, which has the pixels.)
    }

    static func bilinear(_ plane: PixelBuffer<Float>, x: Double, y: Double) -> Float {
        let fx = min(Double(plane.width - 1), max(0, x)), fy = min(Double(plane.height - 1), max(0, y))
        let x0 = Int(fx), y0 = Int(fy), x1 = min(plane.width - 1, x0 + 1), y1 = min(plane.height - 1, y0 + 1)
        let tx = Float(fx - Double(x0)), ty = Float(fy - Double(y0))
        let p = plane.components, w = plane.width
        let top = p[y0 * w + x0] * (1 - tx) + p[y0 * w + x1] * tx
        let bottom = p[y1 * w + x0] * (1 - tx) + p[y1 * w + x1] * tx
        return top * (1 - ty) + bottom * ty
    }

    /// The copies' shapes: the first at the smallest power-of-two reduction (at least 2)
    /// within ``baseLimit``, then halving until one reaches the largest radius.
    static func pyramid(width: Int, height: Int, largest: Float) -> [Level] {
        var base = 2
        while ((width + base - 1) / base) * ((height + base - 1) / base) > baseLimit { base *= 2 }
        var levels: [Level] = []
        var scale = base
        while true {
            let (w, h) = ((width + scale - 1) / scale, (height + scale - 1) / scale)
            // An area average over scale² pixels, a [1 4 6 4 1] blur of σ = 1 sample, and the
            // bilinear reading back: σ ≈ 1.12 · scale.
            levels.append(Level(scale: scale, reach: 2.24 * Float(scale), width: w, height: h, samples: []))
            if 2.24 * Float(scale) >= largest || w <= 2 || h <= 2 { break }
            scale *= 2
        }
        return levels
    }

    /// Column or row lookups for reading a plane of `planeSize` samples bilinearly at each
    /// of `count` picture pixels (centres at i + 0.5), `count` pixels spanning the plane:
    /// the lower sample and the weight of the upper.
    static func lookups(count: Int, planeSize: Int, scale: Double? = nil) -> (index: [Int32], weight: [Float]) {
        var index = [Int32](repeating: 0, count: count), weight = [Float](repeating: 0, count: count)
        let perPixel = scale.map { 1 / $0 } ?? Double(planeSize) / Double(count)
        for i in 0..<count {
            let s = min(Double(planeSize - 1), max(0, (Double(i) + 0.5) * perPixel - 0.5))
            let i0 = min(planeSize - 1, Int(s))
            index[i] = Int32(i0)
            weight[i] = i0 + 1 < planeSize ? Float(s - Double(i0)) : 0
        }
        return (index, weight)
    }

    /// Draws the blur over `pixels` (RGB, `width`×`height`, 8 or 16 bits a sample), in place.
    func draw<Sample: FixedWidthInteger & UnsignedInteger & PixelComponent>(_ pixels: inout PixelBuffer<Sample>) {
        precondition(pixels.channels == 3 && pixels.width == width && pixels.height == height)
        // Samples to linear light, and linear light back in as many steps as there are
        // levels (for 8 bits, 4,096: finer than the bytes near black).
        let top = Double(Sample.max)
        let toLinear = (0...Int(Sample.max)).map { Float(SRGB.linear(Double($0) / top)) }
        let steps = max(4096, Int(Sample.max))
        let toEncoded = (0...steps).map { Sample((SRGB.encoded(Double($0) / Double(steps)) * top).rounded()) }
        let scale = Float(steps)
        // Every pixel's radius, row by row, from the radius and matte planes.
        let radiusColumns = Self.lookups(count: width, planeSize: radius.width), radiusRows = Self.lookups(count: height, planeSize: radius.height)
        let matteColumns = matte.map { Self.lookups(count: width, planeSize: $0.width) }
        let matteRows = matte.map { Self.lookups(count: height, planeSize: $0.height) }
        let radiusRow = { (y: Int, out: UnsafeMutablePointer<Float>) in
            Self.bilinearRow(self.radius, y: y, rows: radiusRows, columns: radiusColumns, count: self.width, into: out)
            if let matte = self.matte, let mc = matteColumns, let mr = matteRows {
                let m = UnsafeMutablePointer<Float>.allocate(capacity: self.width)
                defer { m.deallocate() }
                Self.bilinearRow(matte, y: y, rows: mr, columns: mc, count: self.width, into: m)
                for x in 0..<self.width { out[x] *= 1 - min(1, max(0, m[x])) }
            }
        }
        var filled = levels
        let base = Self.baseCopy(pixels, scale: levels[0].scale, toLinear: toLinear, radiusRow: radiusRow)
        for i in filled.indices { filled[i].samples = Self.blurredCopy(base, level: filled[i], baseScale: levels[0].scale) }
        // Each pixel: its own value (under a third of a pixel of blur), or the mix of the
        // two copies around its radius.
        let (w, h) = (width, height)
        let reach0 = filled[0].reach
        let lookups = filled.map { (Self.lookups(count: w, planeSize: $0.width, scale: Double($0.scale)), Self.lookups(count: h, planeSize: $0.height, scale: Double($0.scale))) }
        pixels.components.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            forEachBand(rows: h) { rows in
                let r = UnsafeMutablePointer<Float>.allocate(capacity: w)
                defer { r.deallocate() }
                for y in rows {
                    radiusRow(y, r)
                    for x in 0..<w where r[x] >= 0.3 {
                        let o = (y * w + x) * 3
                        let own = SIMD4<Float>(toLinear[Int(out[o])], toLinear[Int(out[o + 1])], toLinear[Int(out[o + 2])], 1)
                        var colour: SIMD4<Float>
                        if r[x] < reach0 {
                            let blurred = Self.sample(filled[0], lookups[0], x: x, y: y) ?? own
                            colour = own + (blurred - own) * (r[x] / reach0)
                        } else {
                            let t = log2(r[x] / reach0)
                            let lower = min(filled.count - 1, Int(t))
                            let a = Self.sample(filled[lower], lookups[lower], x: x, y: y) ?? own
                            if lower == filled.count - 1 {
                                colour = a
                            } else {
                                let b = Self.sample(filled[lower + 1], lookups[lower + 1], x: x, y: y) ?? a
                                colour = a + (b - a) * (t - Float(lower))
                            }
                        }
                        for c in 0..<3 { out[o + c] = toEncoded[Int(min(1, max(0, colour[c])) * scale + 0.5)] }
                    }
                }
            }
        }
    }

    /// A plane read bilinearly along picture row `y` into `out` (`count` values).
    static func bilinearRow(
        _ plane: PixelBuffer<Float>, y: Int, rows: (index: [Int32], weight: [Float]), columns: (index: [Int32], weight: [Float]), count: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        let w = plane.width
        let y0 = Int(rows.index[y]), ty = rows.weight[y], y1 = min(plane.height - 1, y0 + 1)
        plane.components.withUnsafeBufferPointer { p in
            columns.index.withUnsafeBufferPointer { ci in
                columns.weight.withUnsafeBufferPointer { cw in
                    for x in 0..<count {
                        let x0 = Int(ci[x]), x1 = min(w - 1, x0 + 1), tx = cw[x]
                        let top = p[y0 * w + x0] + (p[y0 * w + x1] - p[y0 * w + x0]) * tx
                        let bottom = p[y1 * w + x0] + (p[y1 * w + x1] - p[y1 * w + x0]) * tx
                        out[x] = top + (bottom - top) * ty
                    }
                }
            }
        }
    }

    /// A copy's colour at picture pixel (x, y): its premultiplied samples read bilinearly
    /// and divided by their weight; nil where nothing blurred enough is near.
    @inline(__always)
    static func sample(_ level: Level, _ lookups: ((index: [Int32], weight: [Float]), (index: [Int32], weight: [Float])), x: Int, y: Int)
        -> SIMD4<Float>?
    {
        let (columns, rows) = lookups
        let x0 = Int(columns.index[x]), tx = columns.weight[x], y0 = Int(rows.index[y]), ty = rows.weight[y]
        let x1 = min(level.width - 1, x0 + 1), y1 = min(level.height - 1, y0 + 1)
        return level.samples.withUnsafeBufferPointer { s -> SIMD4<Float>? in
            func at(_ i: Int, _ j: Int) -> SIMD4<Float> {
                let o = (j * level.width + i) * 4
                return SIMD4(s[o], s[o + 1], s[o + 2], s[o + 3])
            }
            let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * tx
            let bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * tx
            let v = top + (bottom - top) * ty
            guard v[3] > 1e-4 else { return nil }
            return SIMD4(v[0] / v[3], v[1] / v[3], v[2] / v[3], 1)
        }
    }

    /// The picture averaged over scale×scale blocks in linear light, with each block's
    /// mean blur radius: RGB and radius interleaved.
    static func baseCopy<Sample: FixedWidthInteger & UnsignedInteger & PixelComponent>(
        _ pixels: borrowing PixelBuffer<Sample>, scale: Int, toLinear: [Float], radiusRow: (Int, UnsafeMutablePointer<Float>) -> Void
    ) -> (width: Int, height: Int, samples: [Float]) {
        let (w, h) = (pixels.width, pixels.height)
        let (bw, bh) = ((w + scale - 1) / scale, (h + scale - 1) / scale)
        var samples = [Float](repeating: 0, count: bw * bh * 4)
        nonisolated(unsafe) let radiusRow = radiusRow
        pixels.components.withUnsafeBufferPointer { src in
            samples.withUnsafeMutableBufferPointer { dst in
                toLinear.withUnsafeBufferPointer { lin in
                    nonisolated(unsafe) let (src, dst, lin) = (src, dst, lin)
                    forEachBand(rows: bh) { blockRows in
                        let r = UnsafeMutablePointer<Float>.allocate(capacity: w)
                        defer { r.deallocate() }
                        for by in blockRows {
                            let rowEnd = min(h, (by + 1) * scale)
                            for y in (by * scale)..<rowEnd {
                                radiusRow(y, r)
                                for x in 0..<w {
                                    let o = (by * bw + x / scale) * 4, p = (y * w + x) * 3
                                    dst[o] += lin[Int(src[p])]
                                    dst[o + 1] += lin[Int(src[p + 1])]
                                    dst[o + 2] += lin[Int(src[p + 2])]
                                    dst[o + 3] += r[x]
                                }
                            }
                            let rowsIn = Float(rowEnd - by * scale)
                            for bx in 0..<bw {
                                let n = rowsIn * Float(min(w, (bx + 1) * scale) - bx * scale)
                                for c in 0..<4 { dst[(by * bw + bx) * 4 + c] /= n }
                            }
                        }
                    }
                }
            }
        }
        return (bw, bh, samples)
    }

    /// A copy at `level`'s scale: the base's samples weighted by how blurred they are
    /// (0 at half the copy's reach or less, 1 at its reach or more; for the finest, 0
    /// under a quarter of a pixel and 1 from a pixel), averaged over the
    /// level's blocks, then blurred by [1 4 6 4 1] along rows and columns.
    static func blurredCopy(_ base: (width: Int, height: Int, samples: [Float]), level: Level, baseScale: Int) -> [Float] {
        let factor = level.scale / baseScale
        let (w, h) = (level.width, level.height)
        var out = [Float](repeating: 0, count: w * h * 4)
        // The finest copy takes every pixel blurred at all (from a quarter of a pixel to
        // one), so small radii (a narrow aperture, a small picture) are drawn too.
        let (low, span) = factor == 1 ? (Float(0.25), Float(0.75)) : (level.reach / 2, level.reach / 2)
        base.samples.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let (src, dst) = (src, dst)
                forEachBand(rows: h) { rows in
                    for ly in rows {
                        for by in (ly * factor)..<min(base.height, (ly + 1) * factor) {
                            for bx in 0..<base.width {
                                let s = (by * base.width + bx) * 4
                                let g = min(1, max(0, (src[s + 3] - low) / span))
                                let o = (ly * w + bx / factor) * 4
                                dst[o] += src[s] * g
                                dst[o + 1] += src[s + 1] * g
                                dst[o + 2] += src[s + 2] * g
                                dst[o + 3] += g
                            }
                        }
                        let n = Float(factor * factor)
                        for i in (ly * w * 4)..<((ly + 1) * w * 4) { dst[i] /= n }
                    }
                }
            }
        }
        // [1 4 6 4 1] / 16 along rows, then columns, edges clamped.
        let taps: [Float] = [1, 4, 6, 4, 1].map { $0 / 16 }
        var along = [Float](repeating: 0, count: out.count)
        for y in 0..<h {
            for x in 0..<w {
                var v = SIMD4<Float>()
                for (t, weight) in taps.enumerated() {
                    let o = (y * w + min(w - 1, max(0, x + t - 2))) * 4
                    v += SIMD4(out[o], out[o + 1], out[o + 2], out[o + 3]) * weight
                }
                for c in 0..<4 { along[(y * w + x) * 4 + c] = v[c] }
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var v = SIMD4<Float>()
                for (t, weight) in taps.enumerated() {
                    let o = (min(h - 1, max(0, y + t - 2)) * w + x) * 4
                    v += SIMD4(along[o], along[o + 1], along[o + 2], along[o + 3]) * weight
                }
                for c in 0..<4 { out[(y * w + x) * 4 + c] = v[c] }
            }
        }
        return out
    }
}
