import CRowLoops
import Dispatch
import Foundation
import Imaging
import Synchronization

/// The blur a depth step draws over one picture.
///
/// - Each pixel's blur radius comes from its nearness, normalised over the photo (its 2nd
///   to 98th percentile span 0 to 1): `k · (|n − n_focus| − 0.03)`, with k = 2% of the
///   photo's short side at f/2.8, in proportion to 1/f-number (a lens's circle of
///   confusion grows with the difference in disparity, and with the aperture). So a
///   preview and the full-size render look alike. Both are the whole photo's, before a
///   crop or straighten (``DepthField/wholeSpan``): a crop leaves the blur as it was.
///   When the focus point is on the Portrait matte, the matte holds the person's radius
///   at 0.
/// - The picture is blurred in linear light (a bright light spreads as a lens spreads it)
///   by discs, as a lens's aperture draws an out-of-focus point, at a few radii a factor of
///   two apart, the largest the picture's largest radius (so the far background, where
///   most pixels share it, is drawn with its own disc). Each disc is drawn on a reduced
///   copy coarse enough that it spans 6 to 12 samples, the first with at most 3.5
///   megapixels, so memory stays bounded for any photo; each pixel mixes the two copies
///   around its own radius, or its own value and the finest copy. A copy's sample is
///   the mean over a disc of its own pixels' radius (within the radii of the pixels that
///   read that copy), so both copies around a light draw it as the same disc.
/// - A copy gathers only pixels at least half as blurred as it is (the finest, every
///   pixel blurred at all: a normalised blur, each pixel weighted by how blurred it is), so
///   a sharp subject's colour does not bleed into the blurred background around it: no
///   halo.
/// - Pixels in front of the plane in focus also spread over what is behind them, as a
///   lens draws a near object's blurred edge over the subject: each is scattered over its
///   own disc into a layer with its coverage, laid over the gathered picture.
struct LensBlur {
    let width: Int, height: Int
    /// Each pixel's blur radius in picture pixels, at the depth map's resolution, before
    /// the matte: negative in front of the plane in focus.
    let radius: PixelBuffer<Float>
    /// The radius the picture is gathered by: `radius`'s size, but where the depth map
    /// passes from in front of the focus to behind it, the largest behind it near there.
    let gatherRadius: PixelBuffer<Float>
    /// The Portrait matte, when the focus point is on it.
    let matte: PixelBuffer<Float>?
    let levels: [Level]
    /// Whether anything in front of the plane in focus is blurred.
    let hasFront: Bool

    /// A reduced, blurred copy: RGB in linear light premultiplied by the weight, and the
    /// weight, interleaved.
    struct Level {
        /// Picture pixels per sample.
        let scale: Int
        /// The radius of the disc the copy is blurred by, in picture pixels.
        let reach: Float
        let width: Int, height: Int
        var samples: [Float]
    }

    /// The radii copy `i` of `levels` draws its discs at, for the pixels that read it: from
    /// its lower neighbour's reach to its upper's (each reach is twice the one below), its
    /// own at the ends.
    static func servedRadii(of i: Int, among levels: [Level]) -> ClosedRange<Float> {
        let reach = levels[i].reach
        return (i == 0 ? reach : reach / 2)...(i == levels.count - 1 ? reach : reach * 2)
    }

    /// The largest first copy of the pyramid, in pixels.
    static let baseLimit = 3_500_000
    /// Normalised nearness within this of the focus stays sharp (the depth map's noise).
    static let inFocus: Float = 0.03
    /// Blur radius, as a fraction of the short side, at f/2.8 for the whole nearness span.
    static let reachAtF28 = 0.02
    /// A pixel blurred by less than this many pixels keeps its own value.
    static let sharp: Float = 0.3

    /// nil when nothing would be blurred (a flat depth map, or an aperture that blurs less
    /// than a pixel).
    init?(width: Int, height: Int, depth: DepthField, aperture: Double, focus: (x: Double, y: Double)) {
        let near = depth.nearness
        guard near.width > 0, near.height > 0, let span = depth.span else { return nil }
        (self.width, self.height) = (width, height)
        let normalised = span.normalised
        // The plane in focus: the median nearness around the focus point.
        let cx = min(near.width - 1, Int(focus.x * Double(near.width))), cy = min(near.height - 1, Int(focus.y * Double(near.height)))
        let half = max(1, min(near.width, near.height) / 50)
        var around: [Float] = []
        for y in max(0, cy - half)...min(near.height - 1, cy + half) {
            for x in max(0, cx - half)...min(near.width - 1, cx + half) { around.append(normalised(near.components[y * near.width + x])) }
        }
        around.sort()
        let focusNearness = around[around.count / 2]
        let k = Float(Double(min(width, height)) * depth.wholeShortSide * Self.reachAtF28 * 2.8 / aperture)
        var radius = PixelBuffer<Float>(width: near.width, height: near.height, channels: 1)
        var largest: Float = 0, front = false
        for i in 0..<near.components.count {
            let difference = focusNearness - normalised(near.components[i])
            let r = k * max(0, abs(difference) - Self.inFocus)
            radius.components[i] = difference < 0 ? -r : r
            largest = max(largest, r)
            front = front || (difference < 0 && r >= Self.sharp)
        }
        guard largest >= 0.5 else { return nil }
        self.radius = radius
        hasFront = front
        gatherRadius = front ? Self.acrossEdges(radius) : PixelBuffer(width: radius.width, height: radius.height, channels: 1, components: radius.components.map(abs))
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

    /// Each radius's size, but where the depth map passes from in front of the focus to
    /// behind it within two samples (a near object's edge against the background), the
    /// largest radius behind it there: the depth map's samples in between (its own
    /// smoothing, and the reading between samples) are not in focus, they are that
    /// edge, which would otherwise stay sharp as a thin outline around the near object.
    static func acrossEdges(_ radius: PixelBuffer<Float>) -> PixelBuffer<Float> {
        let (w, h) = (radius.width, radius.height)
        // The nearest (most negative) and farthest radius within two samples: along rows,
        // then down columns (each row from the five around it, so the loops run along
        // memory), in bands of rows.
        var along = [Float](repeating: 0, count: w * h * 2), out = [Float](repeating: 0, count: w * h)
        radius.components.withUnsafeBufferPointer { r in
            along.withUnsafeMutableBufferPointer { along in
                out.withUnsafeMutableBufferPointer { out in
                    nonisolated(unsafe) let (r, along, out) = (r, along, out)
                    let far = w * h
                    forEachBand(rows: h) { rows in
                        for y in rows {
                            for x in 0..<w {
                                var (l, u) = (r[y * w + x], r[y * w + x])
                                for j in max(0, x - 2)...min(w - 1, x + 2) { (l, u) = (min(l, r[y * w + j]), max(u, r[y * w + j])) }
                                (along[y * w + x], along[far + y * w + x]) = (l, u)
                            }
                        }
                    }
                    forEachBand(rows: h) { rows in
                        let (l, u) = (UnsafeMutablePointer<Float>.allocate(capacity: w), UnsafeMutablePointer<Float>.allocate(capacity: w))
                        defer {
                            l.deallocate()
                            u.deallocate()
                        }
                        for y in rows {
                            for x in 0..<w { (l[x], u[x]) = (along[y * w + x], along[far + y * w + x]) }
                            for j in max(0, y - 2)...min(h - 1, y + 2) {
                                for x in 0..<w { (l[x], u[x]) = (min(l[x], along[j * w + x]), max(u[x], along[far + j * w + x])) }
                            }
                            for x in 0..<w {
                                let own = abs(r[y * w + x])
                                out[y * w + x] = l[x] <= -1 && u[x] >= 1 ? max(own, u[x]) : own
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 1, components: out)
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

    /// The copies' shapes: discs a factor of two apart in radius, the largest `largest`,
    /// the smallest at least 2.24 samples of the first copy (the smallest power-of-two
    /// reduction, at least 2, within ``baseLimit``); each copy reduced by a power of two
    /// more as long as its disc still spans 6 samples.
    static func pyramid(width: Int, height: Int, largest: Float) -> [Level] {
        var base = 2
        while ((width + base - 1) / base) * ((height + base - 1) / base) > baseLimit { base *= 2 }
        var count = 1
        while largest / Float(1 << count) >= 2.24 * Float(base), count < 16 { count += 1 }
        return (0..<count).map { i in
            let reach = largest / Float(1 << (count - 1 - i))
            var scale = base
            while reach / Float(scale * 2) >= 6 { scale *= 2 }
            return Level(scale: scale, reach: reach, width: (width + scale - 1) / scale, height: (height + scale - 1) / scale, samples: [])
        }
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
        // Every pixel's radius, row by row, from a radius plane and the matte.
        let radiusColumns = Self.lookups(count: width, planeSize: radius.width), radiusRows = Self.lookups(count: height, planeSize: radius.height)
        let matteColumns = matte.map { Self.lookups(count: width, planeSize: $0.width) }
        let matteRows = matte.map { Self.lookups(count: height, planeSize: $0.height) }
        func rows(of plane: PixelBuffer<Float>) -> (Int, UnsafeMutablePointer<Float>) -> Void {
            { (y: Int, out: UnsafeMutablePointer<Float>) in
                Self.bilinearRow(plane, y: y, rows: radiusRows, columns: radiusColumns, count: self.width, into: out)
                if let matte = self.matte, let mc = matteColumns, let mr = matteRows {
                    let m = UnsafeMutablePointer<Float>.allocate(capacity: self.width)
                    defer { m.deallocate() }
                    Self.bilinearRow(matte, y: y, rows: mr, columns: mc, count: self.width, into: m)
                    for x in 0..<self.width { out[x] *= 1 - min(1, max(0, m[x])) }
                }
            }
        }
        let radiusRow = rows(of: gatherRadius)
        var base = Self.baseCopy(
            pixels, scale: levels[0].scale, toLinear: toLinear, radiusRow: radiusRow, signedRadiusRow: hasFront ? rows(of: radius) : nil)
        // What lies in front, scattered: premultiplied colour and coverage at the first
        // copy's scale (a Level read as the copies are; its reach is not used).
        let front = base.front == nil ? nil : Level(
            scale: base.scale, reach: 0, width: base.width, height: base.height, samples: Self.frontLayer(base, levels: levels))
        // Each working plane is let go as soon as it is used (a 200-megapixel photo's
        // planes are 50 MB each).
        base.front = nil
        var filled = levels
        // Each copy's discs have the radius of the pixels they are drawn for, the pixels
        // that read it (from its lower neighbour's reach to its upper's): a light between
        // two copies' reaches is the same disc in both.
        for i in filled.indices {
            filled[i].samples = Self.blurredCopy(base, level: filled[i], finest: i == 0, radii: Self.servedRadii(of: i, among: levels))
        }
        base.samples = []
        // Each of the front layer's rows: the columns it covers anything in.
        let frontSpans: [Range<Int>] =
            front.map { f in
                (0..<f.height).map { row in
                    let covers = { (column: Int) in f.samples[(row * f.width + column) * 4 + 3] > 1e-3 }
                    guard let first = (0..<f.width).first(where: covers), let last = (0..<f.width).last(where: covers) else { return 0..<0 }
                    return first..<(last + 1)
                }
            } ?? []
        // Each pixel: its own value (under a third of a pixel of blur), or the mix of the
        // two copies around its radius; then what lies in front over it.
        let (w, h) = (width, height)
        let reach0 = filled[0].reach, last = filled.count - 1
        let frontLevel = front == nil ? nil : filled.count
        Self.withReader(filled + (front.map { [$0] } ?? []), width: w, height: h) { reader in
            nonisolated(unsafe) let reader = reader
            pixels.components.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                forEachBand(rows: h) { rows in
                    let r = UnsafeMutablePointer<Float>.allocate(capacity: w)
                    defer { r.deallocate() }
                    for y in rows {
                        radiusRow(y, r)
                        // The layer's columns this row may read anything from.
                        var frontColumns = 0..<0
                        if let frontLevel {
                            let y0 = reader.row(frontLevel, y)
                            let spans = [frontSpans[y0], frontSpans[min(frontSpans.count - 1, y0 + 1)]].filter { !$0.isEmpty }
                            if let first = spans.map(\.lowerBound).min(), let end = spans.map(\.upperBound).max() {
                                frontColumns = (first - 1)..<end
                            }
                        }
                        for x in 0..<w {
                            let blur = r[x]
                            var over = SIMD4<Float>()
                            if let frontLevel, frontColumns.contains(reader.column(frontLevel, x)) { over = reader.read(frontLevel, x: x, y: y) }
                            let covered = over[3] > 1e-3
                            guard blur >= Self.sharp || covered else { continue }
                            let o = (y * w + x) * 3
                            let own = SIMD4<Float>(toLinear[Int(out[o])], toLinear[Int(out[o + 1])], toLinear[Int(out[o + 2])], 1)
                            var colour = own
                            if blur < Self.sharp {
                                // Sharp, under what lies in front.
                            } else if blur < reach0 {
                                let blurred = reader.colour(0, x: x, y: y) ?? own
                                colour = own + (blurred - own) * (blur / reach0)
                            } else {
                                let t = log2(blur / reach0)
                                let lower = min(last, Int(t))
                                let a = reader.colour(lower, x: x, y: y) ?? own
                                if lower == last {
                                    colour = a
                                } else {
                                    let b = reader.colour(lower + 1, x: x, y: y) ?? a
                                    colour = a + (b - a) * (t - Float(lower))
                                }
                            }
                            if covered {
                                // Coverage over 1 (discs of different sizes overlapping) is scaled to 1.
                                let coverage = min(1, over[3])
                                colour = over * (coverage / over[3]) + colour * (1 - coverage)
                            }
                            for c in 0..<3 { out[o + c] = toEncoded[Int(min(1, max(0, colour[c])) * scale + 0.5)] }
                        }
                    }
                }
            }
        }
    }

    /// The copies as the per-pixel loop reads them: each one's samples, and its lookups
    /// (the lower sample and the upper one's weight along every picture column and row)
    /// flat, so reading a pixel copies no array.
    struct Reader {
        let samples: [UnsafeBufferPointer<Float>]
        let widths: [Int], heights: [Int]
        let columnIndex: [Int32], columnWeight: [Float], rowIndex: [Int32], rowWeight: [Float]
        let pictureWidth: Int, pictureHeight: Int

        /// The copy's column and row that picture column `x` and row `y` read first.
        @inline(__always) func column(_ level: Int, _ x: Int) -> Int { Int(columnIndex[level * pictureWidth + x]) }
        @inline(__always) func row(_ level: Int, _ y: Int) -> Int { Int(rowIndex[level * pictureHeight + y]) }

        /// The copy's premultiplied samples at picture pixel (x, y), read bilinearly.
        @inline(__always)
        func read(_ level: Int, x: Int, y: Int) -> SIMD4<Float> {
            let c = level * pictureWidth + x, r = level * pictureHeight + y
            return LensBlur.bilinear4(
                samples[level], width: widths[level], height: heights[level], x0: Int(columnIndex[c]), tx: columnWeight[c],
                y0: Int(rowIndex[r]), ty: rowWeight[r])
        }

        /// The copy's colour at picture pixel (x, y): its samples divided by their weight;
        /// nil where nothing blurred enough is near.
        @inline(__always)
        func colour(_ level: Int, x: Int, y: Int) -> SIMD4<Float>? {
            let v = read(level, x: x, y: y)
            guard v[3] > 1e-4 else { return nil }
            return SIMD4(v[0] / v[3], v[1] / v[3], v[2] / v[3], 1)
        }
    }

    /// A plane of 4 interleaved floats a sample, `width`×`height`, read bilinearly between
    /// column `x0` and the next (its weight `tx`) and row `y0` and the next (`ty`), the
    /// last column and row standing in for the ones past them.
    @inline(__always)
    static func bilinear4(
        _ s: UnsafeBufferPointer<Float>, width w: Int, height h: Int, x0: Int, tx: Float, y0: Int, ty: Float
    ) -> SIMD4<Float> {
        let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
        @inline(__always) func at(_ i: Int, _ j: Int) -> SIMD4<Float> {
            let o = (j * w + i) * 4
            return SIMD4(s[o], s[o + 1], s[o + 2], s[o + 3])
        }
        let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * tx
        let bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * tx
        return top + (bottom - top) * ty
    }

    /// Runs `body` with a ``Reader`` over `levels` for a `width`×`height` picture.
    static func withReader<R>(_ levels: [Level], width: Int, height: Int, _ body: (Reader) -> R) -> R {
        var (columnIndex, columnWeight, rowIndex, rowWeight) = ([Int32](), [Float](), [Int32](), [Float]())
        for level in levels {
            let columns = lookups(count: width, planeSize: level.width, scale: Double(level.scale))
            let rows = lookups(count: height, planeSize: level.height, scale: Double(level.scale))
            (columnIndex, columnWeight) = (columnIndex + columns.index, columnWeight + columns.weight)
            (rowIndex, rowWeight) = (rowIndex + rows.index, rowWeight + rows.weight)
        }
        func nested(_ i: Int, _ pointers: [UnsafeBufferPointer<Float>]) -> R {
            guard i < levels.count else {
                return body(
                    Reader(
                        samples: pointers, widths: levels.map(\.width), heights: levels.map(\.height), columnIndex: columnIndex,
                        columnWeight: columnWeight, rowIndex: rowIndex, rowWeight: rowWeight, pictureWidth: width, pictureHeight: height))
            }
            return levels[i].samples.withUnsafeBufferPointer { nested(i + 1, pointers + [$0]) }
        }
        return nested(0, [])
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

    /// The picture averaged over scale×scale blocks: RGB in linear light and the mean blur
    /// radius, interleaved; and, when something in front of the focus is blurred, the
    /// share of each block in front and their mean radius.
    struct Base {
        let scale: Int, width: Int, height: Int
        var samples: [Float]
        var front: [Float]?
    }

    static func baseCopy<Sample: FixedWidthInteger & UnsignedInteger & PixelComponent>(
        _ pixels: borrowing PixelBuffer<Sample>, scale: Int, toLinear: [Float], radiusRow: (Int, UnsafeMutablePointer<Float>) -> Void,
        signedRadiusRow: ((Int, UnsafeMutablePointer<Float>) -> Void)?
    ) -> Base {
        let front = signedRadiusRow != nil
        let (w, h) = (pixels.width, pixels.height)
        let (bw, bh) = ((w + scale - 1) / scale, (h + scale - 1) / scale)
        var samples = [Float](repeating: 0, count: bw * bh * 4)
        var fronts = [Float](repeating: 0, count: front ? bw * bh * 2 : 0)
        nonisolated(unsafe) let (radiusRow, signedRadiusRow) = (radiusRow, signedRadiusRow)
        pixels.components.withUnsafeBufferPointer { src in
            samples.withUnsafeMutableBufferPointer { dst in
                fronts.withUnsafeMutableBufferPointer { near in
                    toLinear.withUnsafeBufferPointer { lin in
                        nonisolated(unsafe) let (src, dst, near, lin) = (src, dst, near, lin)
                        forEachBand(rows: bh) { blockRows in
                            let r = UnsafeMutablePointer<Float>.allocate(capacity: w), signed = UnsafeMutablePointer<Float>.allocate(capacity: w)
                            defer {
                                r.deallocate()
                                signed.deallocate()
                            }
                            for by in blockRows {
                                let rowEnd = min(h, (by + 1) * scale)
                                for y in (by * scale)..<rowEnd {
                                    radiusRow(y, r)
                                    signedRadiusRow?(y, signed)
                                    for x in 0..<w {
                                        let o = (by * bw + x / scale) * 4, p = (y * w + x) * 3
                                        dst[o] += lin[Int(src[p])]
                                        dst[o + 1] += lin[Int(src[p + 1])]
                                        dst[o + 2] += lin[Int(src[p + 2])]
                                        dst[o + 3] += r[x]
                                        if front && signed[x] <= -sharp {
                                            near[o / 2] += 1
                                            near[o / 2 + 1] -= signed[x]
                                        }
                                    }
                                }
                                let rowsIn = Float(rowEnd - by * scale)
                                for bx in 0..<bw {
                                    let n = rowsIn * Float(min(w, (bx + 1) * scale) - bx * scale)
                                    for c in 0..<4 { dst[(by * bw + bx) * 4 + c] /= n }
                                    if front {
                                        let f = (by * bw + bx) * 2
                                        if near[f] > 0 { near[f + 1] /= near[f] }
                                        near[f] /= n
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Base(scale: scale, width: bw, height: bh, samples: samples, front: front ? fronts : nil)
    }

    /// A copy at `level`'s scale: the base's samples weighted by how blurred they are
    /// (0 at half the copy's reach or less, 1 at its reach or more; for the finest, 0
    /// under a quarter of a pixel and 1 from a pixel), averaged over the level's blocks,
    /// then averaged over its disc.
    static func blurredCopy(_ base: Base, level: Level, finest: Bool, radii: ClosedRange<Float>) -> [Float] {
        // The finest copy takes every pixel blurred at all (from a quarter of a pixel to
        // one), so small radii (a narrow aperture, a small picture) are drawn too.
        let (low, span) = finest ? (Float(0.25), Float(0.75)) : (level.reach / 2, level.reach / 2)
        var (out, _, _) = base.samples.withUnsafeBufferPointer { src in
            nonisolated(unsafe) let src = src
            return reduced(base, to: level) { s in min(1, max(0, (src[s * 4 + 3] - low) / span)) }
        }
        discMean(&out, width: level.width, height: level.height, radii: discRadii(base, level: level, within: radii))
        return out
    }

    /// Each of `level`'s samples' disc radius, in samples: the mean blur radius of the
    /// base's samples in its block, brought within `radii` (picture pixels).
    static func discRadii(_ base: Base, level: Level, within radii: ClosedRange<Float>) -> [Float] {
        let factor = level.scale / base.scale
        var out = [Float](repeating: 0, count: level.width * level.height)
        base.samples.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { out in
                for by in 0..<base.height {
                    let row = (by / factor) * level.width
                    for bx in 0..<base.width { out[row + bx / factor] += src[(by * base.width + bx) * 4 + 3] }
                }
                // Each block's mean: its sum over the base's samples in it (fewer at the edges).
                let scale = Float(level.scale)
                for ly in 0..<level.height {
                    let rows = Float(min(base.height, (ly + 1) * factor) - ly * factor)
                    for lx in 0..<level.width {
                        let count = rows * Float(min(base.width, (lx + 1) * factor) - lx * factor)
                        let mean = out[ly * level.width + lx] / count
                        out[ly * level.width + lx] = min(radii.upperBound, max(radii.lowerBound, mean)) / scale
                    }
                }
            }
        }
        return out
    }

    /// The base's samples, each weighted by `weight` (of the sample's index; 0 leaves it
    /// out), summed over `level`'s blocks and divided by the block's size: premultiplied
    /// RGB and the weights, interleaved at the level's scale. And the mean of `value` (of
    /// the sample's index) over each block by the same weights, 0 where they are all 0
    /// (empty without `value`); and whether any weight was above 0.
    static func reduced(
        _ base: Base, to level: Level, weight: @Sendable (Int) -> Float, averaging value: (@Sendable (Int) -> Float)? = nil
    ) -> (samples: [Float], means: [Float], any: Bool) {
        let factor = level.scale / base.scale
        let (w, h) = (level.width, level.height)
        var out = [Float](repeating: 0, count: w * h * 4), means = [Float](repeating: 0, count: value == nil ? 0 : w * h)
        let found = Mutex(false)
        base.samples.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                means.withUnsafeMutableBufferPointer { means in
                    nonisolated(unsafe) let (src, dst, means) = (src, dst, means)
                    forEachBand(rows: h) { rows in
                        var any = false
                        for ly in rows {
                            for by in (ly * factor)..<min(base.height, (ly + 1) * factor) {
                                for bx in 0..<base.width {
                                    let i = by * base.width + bx
                                    let g = weight(i)
                                    guard g > 0 else { continue }
                                    any = true
                                    let (s, l) = (i * 4, ly * w + bx / factor)
                                    dst[l * 4] += src[s] * g
                                    dst[l * 4 + 1] += src[s + 1] * g
                                    dst[l * 4 + 2] += src[s + 2] * g
                                    dst[l * 4 + 3] += g
                                    if let value { means[l] += g * value(i) }
                                }
                            }
                            if value != nil {
                                for l in (ly * w)..<((ly + 1) * w) where dst[l * 4 + 3] > 0 { means[l] /= dst[l * 4 + 3] }
                            }
                            let n = Float(factor * factor)
                            for i in (ly * w * 4)..<((ly + 1) * w * 4) { dst[i] /= n }
                        }
                        if any { found.withLock { $0 = true } }
                    }
                }
            }
        }
        return (out, means, found.withLock { $0 })
    }

    /// What lies in front of the plane in focus, scattered: each base sample's share in
    /// front, its colour premultiplied by that share, split between the two copies around
    /// its radius (under the smallest, that copy's share in proportion to its radius), each
    /// copy's samples spread over discs of the radius of the ink in them (so both copies
    /// draw a light between their reaches as the same disc), read back at the base's
    /// scale and summed. Premultiplied RGB and coverage, interleaved, at the base's scale.
    static func frontLayer(_ base: Base, levels: [Level]) -> [Float] {
        guard let fronts = base.front else { return [] }
        var layer = [Float](repeating: 0, count: base.width * base.height * 4)
        let reach0 = levels[0].reach, last = levels.count - 1
        @Sendable func share(_ r: Float, of level: Int) -> Float {
            guard r >= reach0 else { return level == 0 ? r / reach0 : 0 }
            let t = log2(r / reach0), lower = min(last, Int(t))
            if lower == last { return level == last ? 1 : 0 }
            let upper = t - Float(lower)
            return level == lower ? 1 - upper : level == lower + 1 ? upper : 0
        }
        for (i, level) in levels.enumerated() {
            let factor = level.scale / base.scale
            let (w, h) = (level.width, level.height)
            let radii = servedRadii(of: i, among: levels)
            guard let (reduced, discs) = frontInk(base, fronts, level: level, share: { share($0, of: i) }, within: radii) else { continue }
            let ink = scattered(consume reduced, width: w, height: h, radii: discs)
            // Read back at the base's scale, bilinearly, and added.
            let columns = lookups(count: base.width, planeSize: w, scale: Double(factor))
            let rows = lookups(count: base.height, planeSize: h, scale: Double(factor))
            ink.withUnsafeBufferPointer { src in
                layer.withUnsafeMutableBufferPointer { dst in
                    nonisolated(unsafe) let (src, dst) = (src, dst)
                    forEachBand(rows: base.height) { bandRows in
                        for by in bandRows {
                            let y0 = Int(rows.index[by]), ty = rows.weight[by]
                            for bx in 0..<base.width {
                                let v = bilinear4(
                                    src, width: w, height: h, x0: Int(columns.index[bx]), tx: columns.weight[bx], y0: y0, ty: ty)
                                let o = (by * base.width + bx) * 4
                                for c in 0..<4 { dst[o + c] += v[c] }
                            }
                        }
                    }
                }
            }
        }
        return layer
    }

    /// What lies in front, in `level`'s copy: each base sample in front weighted by its
    /// share there and by `share` of its radius, reduced to the level (``reduced(_:to:weight:averaging:)``),
    /// and each sample's disc radius in samples: the weighted mean radius of what is in
    /// front in its block, brought within `radii` (picture pixels), 0 where there is none.
    /// nil when nothing is.
    static func frontInk(
        _ base: Base, _ fronts: [Float], level: Level, share: @Sendable @escaping (Float) -> Float, within radii: ClosedRange<Float>
    ) -> (ink: [Float], radii: [Float])? {
        let (ink, means, any) = fronts.withUnsafeBufferPointer { fronts in
            nonisolated(unsafe) let fronts = fronts
            return reduced(
                base, to: level, weight: { s in fronts[s * 2] > 0 ? fronts[s * 2] * share(fronts[s * 2 + 1]) : 0 },
                averaging: { s in fronts[s * 2 + 1] })
        }
        guard any else { return nil }
        let scale = Float(level.scale)
        return (ink, means.map { $0 > 0 ? min(radii.upperBound, max(radii.lowerBound, $0)) / scale : 0 })
    }

    /// A plane of 4 interleaved floats a sample, each sample spread evenly over a disc of
    /// its own radius (`radii`, in samples; 0 spreads nothing): the transpose of
    /// ``discMean(_:width:height:radii:)``, so a light drawn this way in two copies is the
    /// same disc in both, wherever the pixels it lands on are. The plane handed in is
    /// scaled in its own storage and let go once the new one is drawn.
    static func scattered(_ plane: consuming [Float], width: Int, height: Int, radii: [Float]) -> [Float] {
        precondition(radii.count == width * height && plane.count == width * height * 4)
        // A disc's area (its rows' spans, rows outside the plane included, as the gather
        // counts them), tabled every 1/64 of a sample and read between two entries.
        let reach = Int(radii.max() ?? 0)
        let steps: Float = 64
        let areas = (0...((reach + 1) * Int(steps) + 1)).map { k -> Float in
            let r = Float(k) / steps
            return (-Int(r)...Int(r)).reduce(0) { $0 + 2 * max(0, r * r - Float($1 * $1)).squareRoot() }
        }
        // Each row's columns holding anything, and each sample divided by its disc's area.
        var spans = [Int](repeating: 0, count: height * 2)
        for y in 0..<height {
            var (first, end) = (width, 0)
            for x in 0..<width {
                let s = y * width + x, r = radii[s]
                guard plane[s * 4 + 3] != 0, r > 0 else { continue }
                (first, end) = (min(first, x), x + 1)
                let at = r * steps, k = Int(at), t = at - Float(k)
                let area = max(1e-6, areas[k] + (areas[k + 1] - areas[k]) * t)
                for c in 0..<4 { plane[s * 4 + c] /= area }
            }
            (spans[y * 2], spans[y * 2 + 1]) = first < end ? (first, end) : (0, 0)
        }
        var out = [Float](repeating: 0, count: plane.count)
        plane.withUnsafeBufferPointer { src in
            radii.withUnsafeBufferPointer { radii in
                spans.withUnsafeBufferPointer { spans in
                    out.withUnsafeMutableBufferPointer { dst in
                        nonisolated(unsafe) let (src, radii, spans, dst) = (src, radii, spans, dst)
                        forEachBand(rows: height) { rows in
                            let diff = UnsafeMutablePointer<Double>.allocate(capacity: (width + 1) * 4)
                            defer { diff.deallocate() }
                            camlib_disc_scatter4(
                                src.baseAddress!, width, height, radii.baseAddress!, spans.baseAddress!, reach, rows.lowerBound, rows.count,
                                dst.baseAddress!, diff)
                        }
                    }
                }
            }
        }
        return out
    }

    /// A plane of 4 interleaved floats a sample averaged, in place, over a disc of its own
    /// radius around each sample, `radii` (one a sample, in samples; 0 leaves the sample
    /// 0; samples outside the plane count as zero, so a weight channel divides the
    /// picture's edge out), by running sums along rows (CRowLoops), in bands: each band
    /// first keeps a copy of the rows around it that its neighbours will write over, so no
    /// second plane is needed.
    static func discMean(_ plane: inout [Float], width: Int, height: Int, radii: [Float]) {
        precondition(radii.count == width * height)
        let reach = Int(radii.max() ?? 0)
        radii.withUnsafeBufferPointer { radii in
            nonisolated(unsafe) let radii = radii
            inDiscBands(&plane, width: width, height: height, reach: reach) { plane, pad, band, above, below, ring in
                let (areas, runs) = (UnsafeMutablePointer<Float>.allocate(capacity: width), UnsafeMutablePointer<Int>.allocate(capacity: width + 1))
                defer {
                    areas.deallocate()
                    runs.deallocate()
                }
                camlib_disc_band4_varying(
                    plane, width, height, pad, radii.baseAddress!, reach, band.lowerBound, band.count, above, below, ring, areas, runs)
            }
        }
    }

    /// Runs `draw` on each band of the plane's rows at once, with the plane, the running
    /// sums' padding, the band, copies of the `reach` rows above and below it (taken
    /// before any band is written) and a ring of 2·reach + 1 rows of running sums.
    private static func inDiscBands(
        _ plane: inout [Float], width: Int, height: Int, reach: Int,
        _ draw: (UnsafeMutablePointer<Float>, Int, Range<Int>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void
    ) {
        let pad = reach + 2
        let row = width * 4, stride = (width + 1 + 2 * pad) * 4
        let ranges = bands(rows: height)
        // Each band's `reach` rows above and below, copied before any band is written.
        var halos = [Float](repeating: 0, count: ranges.count * 2 * max(1, reach) * row)
        plane.withUnsafeBufferPointer { plane in
            halos.withUnsafeMutableBufferPointer { halos in
                for (b, band) in ranges.enumerated() where reach > 0 {
                    for i in 0..<reach {
                        let (up, down) = (band.lowerBound - reach + i, band.upperBound + i)
                        for (y, slot) in [(up, 2 * b * reach + i), (down, (2 * b + 1) * reach + i)] where (0..<height).contains(y) {
                            halos.baseAddress!.advanced(by: slot * row).update(from: plane.baseAddress!.advanced(by: y * row), count: row)
                        }
                    }
                }
            }
        }
        halos.withUnsafeBufferPointer { halos in
            plane.withUnsafeMutableBufferPointer { plane in
                nonisolated(unsafe) let (halos, plane, draw) = (halos, plane, draw)
                DispatchQueue.concurrentPerform(iterations: ranges.count) { b in
                    let ring = UnsafeMutablePointer<Float>.allocate(capacity: (2 * reach + 1) * stride)
                    defer { ring.deallocate() }
                    let above = halos.baseAddress! + 2 * b * max(1, reach) * row, below = above + max(1, reach) * row
                    draw(plane.baseAddress!, pad, ranges[b], above, below, ring)
                }
            }
        }
    }
}
