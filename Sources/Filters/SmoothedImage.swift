import CRowLoops
import Imaging

/// A picture averaged down to a working size whose short side is at most `shortSide`
/// pixels, then softened: what the comic and posterize filters decide their regions and
/// lines on. Working at one size for every input is what gives a 1440-pixel movie frame
/// and its 5712-pixel still the same look, keeps sensor noise out of the decisions (a
/// still's 6x6 pixels become one sample) and keeps the costly steps small; the result is
/// read back at full size by bilinear interpolation (`UpsampledRows`), so edges between
/// regions stay smooth curves instead of blocks.
public struct SmoothedImage: Sendable {
    /// Red, green, blue and Rec. 709 luma at the working size, 0 ... 255.
    let red: FloatPlane, green: FloatPlane, blue: FloatPlane, luma: FloatPlane
    /// Full-size pixels per working sample.
    let scale: Double

    init(_ image: borrowing PixelBuffer<UInt8>, shortSide: Int, blurRadius: Int) {
        precondition(image.channels == 3, "filters take RGB")
        let size = Self.workingSize(width: image.width, height: image.height, shortSide: shortSide)
        self.init(averaged: Self.areaAverage(image, width: size.width, height: size.height), scale: size.scale, blurRadius: blurRadius)
    }

    /// From a 16-bit picture rounded to 8 bits a band of rows at a time, as a region
    /// rendering's 16-bit summary is made, so that no 8-bit copy of the whole is held.
    init(sixteenBit image: borrowing PixelBuffer<UInt16>, shortSide: Int, blurRadius: Int) {
        precondition(image.channels == 3, "filters take RGB")
        let sums = AreaAccumulator(width: image.width, height: image.height, shortSide: shortSide)
        for y in stride(from: 0, to: image.height, by: Self.bandRows) {
            sums.add(image.eightBit(rows: y..<min(image.height, y + Self.bandRows)), x: 0, y: y)
        }
        self = sums.smoothed(blurRadius: blurRadius)
    }

    /// Rows rounded to 8 bits at a time for ``init(sixteenBit:shortSide:blurRadius:)``.
    static let bandRows = 64

    /// From the picture's area average at the working size (`areaAverage`, or an
    /// `AreaAccumulator` fed the picture region by region).
    init(averaged: [FloatPlane], scale: Double, blurRadius: Int) {
        self.scale = scale
        var planes = averaged
        let (w, h) = (planes[0].width, planes[0].height)
        // Two box passes: close to a Gaussian, without its cost.
        for c in 0..<3 { planes[c] = planes[c].boxBlurred(radius: blurRadius).boxBlurred(radius: blurRadius) }
        (red, green, blue) = (planes[0], planes[1], planes[2])
        luma = planes[0].values.withUnsafeBufferPointer { r in
            planes[1].values.withUnsafeBufferPointer { g in
                planes[2].values.withUnsafeBufferPointer { b in
                    FloatPlane(width: w, height: h) { y in
                        let (r, g, b, n) = (r.baseAddress!, g.baseAddress!, b.baseAddress!, w * h)
                        // In vector registers: the compiler does not vectorise a loop over
                        // raw pointers that might overlap.
                        var i = 0
                        while i + FloatVector.lanes <= n {
                            let (vr, vg, vb) = (FloatVector.load(r + i), FloatVector.load(g + i), FloatVector.load(b + i))
                            FloatVector.store(0.2126 * vr + 0.7152 * vg + 0.0722 * vb, y + i)
                            i += FloatVector.lanes
                        }
                        while i < n {
                            y[i] = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]
                            i += 1
                        }
                    }
                }
            }
        }
    }

    /// From the picture already averaged down to the working size, as 8-bit RGB.
    init(averagedPicture picture: borrowing PixelBuffer<UInt8>, scale: Double, blurRadius: Int) {
        let (w, h) = (picture.width, picture.height)
        // The three planes in one pass over the interleaved bytes.
        let (red, green, blue) = picture.components.withUnsafeBufferPointer { rgb in
            FloatPlane.three(width: w, height: h) { r, g, b in
                let rgb = rgb.baseAddress!
                for i in 0..<(w * h) { (r[i], g[i], b[i]) = (Float(rgb[3 * i]), Float(rgb[3 * i + 1]), Float(rgb[3 * i + 2])) }
            }
        }
        self.init(averaged: [red, green, blue], scale: scale, blurRadius: blurRadius)
    }

    /// The working size for a picture: its short side at most `shortSide`, and the
    /// full-size pixels per working sample.
    static func workingSize(width: Int, height: Int, shortSide: Int) -> (width: Int, height: Int, scale: Double) {
        let short = max(1, min(width, height))
        let target = min(short, shortSide)
        let scale = Double(short) / Double(target)
        return (max(1, Int((Double(width) / scale).rounded())), max(1, Int((Double(height) / scale).rounded())), scale)
    }

    /// Each output sample is the mean of the source pixels its area covers (partly covered
    /// pixels weighted by the part), so no pixel is skipped and none counts twice. Output
    /// rows are made in parallel, each from the source rows it covers.
    static func areaAverage(_ image: PixelBuffer<UInt8>, width w: Int, height h: Int) -> [FloatPlane] {
        let columns = AreaWeights(source: image.width, target: w), rows = AreaWeights(source: image.height, target: h)
        // Three planes of their own: copies of one would each be copied again on first write.
        var red = FloatPlane(width: w, height: h), green = FloatPlane(width: w, height: h), blue = FloatPlane(width: w, height: h)
        let sw = image.width
        image.components.withUnsafeBufferPointer { src in
            red.values.withUnsafeMutableBufferPointer { r in
                green.values.withUnsafeMutableBufferPointer { g in
                    blue.values.withUnsafeMutableBufferPointer { b in
                        nonisolated(unsafe) let (r, g, b) = (r, g, b)
                        forEachBand(rows: h) { band in
                            var row = [Float](repeating: 0, count: w * 3)
                            for oy in band {
                                var acc = [Float](repeating: 0, count: w * 3)
                                for (sy, wy) in rows.taps(oy) {
                                    // One source row across, weighted into `row`, then down into `acc`.
                                    let line = src.baseAddress! + sy * sw * 3
                                    columns.first.withUnsafeBufferPointer { first in
                                        columns.offsets.withUnsafeBufferPointer { offsets in
                                            columns.weights.withUnsafeBufferPointer { weights in
                                                for ox in 0..<w {
                                                    var (sr, sg, sb): (Float, Float, Float) = (0, 0, 0)
                                                    var sx = first[ox]
                                                    for k in offsets[ox]..<offsets[ox + 1] {
                                                        let wx = weights[k]
                                                        sr += wx * Float(line[sx * 3])
                                                        sg += wx * Float(line[sx * 3 + 1])
                                                        sb += wx * Float(line[sx * 3 + 2])
                                                        sx += 1
                                                    }
                                                    row[ox * 3] = sr
                                                    row[ox * 3 + 1] = sg
                                                    row[ox * 3 + 2] = sb
                                                }
                                            }
                                        }
                                    }
                                    for i in 0..<(w * 3) { acc[i] += wy * row[i] }
                                }
                                for ox in 0..<w {
                                    r[oy * w + ox] = acc[ox * 3]
                                    g[oy * w + ox] = acc[ox * 3 + 1]
                                    b[oy * w + ox] = acc[ox * 3 + 2]
                                }
                            }
                        }
                    }
                }
            }
        }
        return [red, green, blue]
    }
}

/// Which source samples make each target sample of an area average along one axis, and
/// with what weight (the weights of one target sample add up to 1).
struct AreaWeights: Sendable {
    /// Target sample i is made of source samples first[i] ..< first[i] + (offsets[i + 1] −
    /// offsets[i]), weighted by weights[offsets[i] ..< offsets[i + 1]].
    let first: [Int]
    let offsets: [Int]
    let weights: [Float]

    init(source: Int, target: Int) {
        let step = Double(source) / Double(target)
        var first: [Int] = [], offsets: [Int] = [0], weights: [Float] = []
        for i in 0..<target {
            let a = Double(i) * step, b = min(Double(source), Double(i + 1) * step)
            let lo = Int(a.rounded(.down)), hi = max(lo, min(source - 1, Int(b.rounded(.up)) - 1))
            first.append(lo)
            for j in lo...hi { weights.append(Float((min(b, Double(j + 1)) - max(a, Double(j))) / step)) }
            offsets.append(weights.count)
        }
        self.first = first
        self.offsets = offsets
        self.weights = weights
    }

    /// For each of the `source` samples s, the target samples it goes into and with what
    /// weight: `targets[k]` and `weights[k]` for k in `offsets[s] ..< offsets[s + 1]`.
    func bySource(count source: Int) -> (offsets: [Int], targets: [Int32], weights: [Float]) {
        var lists = [[(Int32, Float)]](repeating: [], count: source)
        for i in 0..<first.count {
            for k in offsets[i]..<offsets[i + 1] { lists[first[i] + k - offsets[i]].append((Int32(i), weights[k])) }
        }
        var offsets = [0], targets: [Int32] = [], weights: [Float] = []
        for list in lists {
            for (t, w) in list {
                targets.append(t)
                weights.append(w)
            }
            offsets.append(targets.count)
        }
        return (offsets, targets, weights)
    }

    /// (source index, weight) of target sample i.
    func taps(_ i: Int) -> some Sequence<(Int, Float)> {
        let lo = first[i]
        return (offsets[i]..<offsets[i + 1]).lazy.map { (lo + $0 - offsets[i], weights[$0]) }
    }
}

/// Reads working-size planes back at full size, row by row, by bilinear interpolation
/// between the nearest samples (sample centres aligned, edges clamped).
struct UpsampledRows: Sendable {
    let planes: [FloatPlane]
    let width: Int
    let height: Int
    private let x0: [Int32], x1: [Int32], tx: [Float]

    init(_ planes: [FloatPlane], width: Int, height: Int) {
        self.planes = planes
        self.width = width
        self.height = height
        let sw = planes[0].width
        let sx = Double(sw) / Double(width)
        var x0: [Int32] = [], x1: [Int32] = [], tx: [Float] = []
        for x in 0..<width {
            let f = max(0, (Double(x) + 0.5) * sx - 0.5)
            let i = min(sw - 1, Int(f))
            x0.append(Int32(i))
            x1.append(Int32(min(sw - 1, i + 1)))
            tx.append(Float(f - Double(i)))
        }
        (self.x0, self.x1, self.tx) = (x0, x1, tx)
    }

    /// The working rows above and below full-size row y, and how far down between them
    /// it lies.
    func verticalTaps(_ y: Int) -> (above: Int, below: Int, t: Float) {
        let sh = planes[0].height
        let f = max(0, (Double(y) + 0.5) * Double(sh) / Double(height) - 0.5)
        let r0 = min(sh - 1, Int(f))
        return (r0, min(sh - 1, r0 + 1), Float(f - Double(r0)))
    }

    /// Working row `r` of every plane read back across, at full-size columns
    /// `x ..< x + columns`: plane p into `out + p * columns`.
    func across(_ r: Int, x: Int, columns: Int, into out: UnsafeMutablePointer<Float>) {
        let sw = planes[0].width
        // Twice the working width (a movie frame of a comic, 1920 from 960): each working
        // sample gives the two columns either side of it, a quarter of the way to its
        // neighbours (`CRowLoops`, in vector registers).
        if width == 2 * sw, x % 2 == 0, columns % 2 == 0 {
            for (p, plane) in planes.enumerated() {
                plane.values.withUnsafeBufferPointer { v in
                    camlib_rows_doubled(v.baseAddress! + r * sw, sw, x / 2, columns / 2, out + p * columns)
                }
            }
            return
        }
        x0.withUnsafeBufferPointer { x0 in
            x1.withUnsafeBufferPointer { x1 in
                tx.withUnsafeBufferPointer { tx in
                    for (p, plane) in planes.enumerated() {
                        plane.values.withUnsafeBufferPointer { v in
                            let line = v.baseAddress! + r * sw, o = out + p * columns
                            for i in 0..<columns {
                                let a = line[Int(x0[x + i])], b = line[Int(x1[x + i])]
                                o[i] = a + tx[x + i] * (b - a)
                            }
                        }
                    }
                }
            }
        }
    }
}

extension UpsampledRows {
    /// Calls `body` for every row of `pixels` (RGB), the region of the reader's picture
    /// whose top-left pixel is (`x`, `y`), in parallel bands: with the picture's row
    /// number, that row of every plane read back at full size over the region's columns
    /// (`planes[p][i]` for column x + i), `extraRows` more rows of the region's width of
    /// scratch, and the region's row to read and write in place.
    func forEachRow(
        of pixels: inout PixelBuffer<UInt8>, x: Int = 0, y: Int = 0, extraRows: Int,
        _ body: (_ y: Int, _ planes: [UnsafeMutablePointer<Float>], _ extra: UnsafeMutablePointer<Float>, _ row: UnsafeMutablePointer<UInt8>) -> Void
    ) {
        let (w, h) = (pixels.width, pixels.height)
        precondition(pixels.channels == 3, "RGB")
        pixels.components.withUnsafeMutableBufferPointer { all in
            nonisolated(unsafe) let all = all
            forEachRow(x: x, y: y, width: w, height: h, extraRows: extraRows) { r, planes, extra in
                body(y + r, planes, extra, all.baseAddress! + r * w * 3)
            }
        }
    }

    /// Calls `body` for every row of the `width`×`height` region of the reader's picture
    /// whose top-left pixel is (`x`, `y`), in parallel bands (each starting at a multiple
    /// of `rowsTogether` rows, so rows drawn together stay in one band): with the row's
    /// number in the region, that row of every plane read back at full size over the
    /// region's columns (`planes[p][i]` for column x + i), and `extraRows` more rows of
    /// the region's width of scratch, the band's own.
    func forEachRow(
        x: Int, y: Int, width w: Int, height h: Int, extraRows: Int, rowsTogether: Int = 1,
        _ body: (_ row: Int, _ planes: [UnsafeMutablePointer<Float>], _ extra: UnsafeMutablePointer<Float>) -> Void
    ) {
        precondition(x >= 0 && y >= 0 && x + w <= width && y + h <= height, "a region of the reader's picture")
        let (count, top, left) = (planes.count, y, x)
        forEachBand(rows: h, startingAtMultiplesOf: rowsTogether) { band in
            // The rows handed out and the extra rows, then the two working rows the
            // current full-size row lies between, read back across: a working row
            // serves `scale` full-size rows in turn, and is read across once for them.
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: (count + extraRows) * w + 2 * count * w)
            defer { scratch.deallocate() }
            let rows = (0..<count).map { scratch + $0 * w }
            var upper = (row: -1, values: scratch + (count + extraRows) * w), lower = (row: -1, values: upper.values + count * w)
            for r in band {
                let (above, below, t) = verticalTaps(top + r)
                if upper.row != above {
                    if lower.row == above { swap(&upper, &lower) } else { across(above, x: left, columns: w, into: upper.values); upper.row = above }
                }
                if below != above, lower.row != below { across(below, x: left, columns: w, into: lower.values); lower.row = below }
                let (a, b) = (upper.values, below == above ? upper.values : lower.values)
                let n = count * w
                var i = 0
                // Down between them: whole rows of every plane at once, in vector registers.
                while i + FloatVector.lanes <= n {
                    let va = FloatVector.load(a + i)
                    FloatVector.store(va + t * (FloatVector.load(b + i) - va), scratch + i)
                    i += FloatVector.lanes
                }
                while i < n {
                    scratch[i] = a[i] + t * (b[i] - a[i])
                    i += 1
                }
                body(r, rows, scratch + count * w)
            }
        }
    }
}

/// A picture's area average at a working size (`SmoothedImage.areaAverage`), made from
/// its regions one at a time, in any order: each source pixel adds its weighted share to
/// the samples it falls in. For pictures too large to hold whole (their summaries, their
/// thumbnails).
public final class AreaAccumulator {
    let width: Int, height: Int
    let sourceWidth: Int, sourceHeight: Int
    let scale: Double
    private let columns: (offsets: [Int], targets: [Int32], weights: [Float])
    private let rows: (offsets: [Int], targets: [Int32], weights: [Float])
    /// Red, green, blue sums, interleaved, at the working size.
    private var sums: [Float]

    /// For a `width`×`height` picture, averaged down to `shortSide` on its short side.
    public init(width: Int, height: Int, shortSide: Int) {
        let size = SmoothedImage.workingSize(width: width, height: height, shortSide: shortSide)
        (self.width, self.height, scale) = size
        (sourceWidth, sourceHeight) = (width, height)
        columns = AreaWeights(source: width, target: size.width).bySource(count: width)
        rows = AreaWeights(source: height, target: size.height).bySource(count: height)
        sums = [Float](repeating: 0, count: size.width * size.height * 3)
    }

    /// Adds the region `pixels` (RGB) whose top-left pixel is (x, y) of the picture.
    public func add(_ pixels: borrowing PixelBuffer<UInt8>, x: Int, y: Int) {
        precondition(pixels.channels == 3 && x + pixels.width <= sourceWidth && y + pixels.height <= sourceHeight, "a region of the picture")
        let (w, rw) = (width, pixels.width)
        // One source row across, weighted into the working columns it touches, then down
        // into the working rows it falls in.
        var across = [Float](repeating: 0, count: w * 3)
        let (columnOffsets, columnTargets, columnWeights) = columns
        let (rowOffsets, rowTargets, rowWeights) = rows
        let firstColumn = Int(columnTargets[columnOffsets[x]]), lastColumn = Int(columnTargets[columnOffsets[x + rw] - 1])
        let touched = (firstColumn * 3)...(lastColumn * 3 + 2)
        pixels.components.withUnsafeBufferPointer { src in
            sums.withUnsafeMutableBufferPointer { sums in
                across.withUnsafeMutableBufferPointer { across in
                    columnOffsets.withUnsafeBufferPointer { offsets in
                        columnTargets.withUnsafeBufferPointer { targets in
                            columnWeights.withUnsafeBufferPointer { weights in
                                for r in 0..<pixels.height {
                                    for i in touched { across[i] = 0 }
                                    let line = src.baseAddress! + r * rw * 3
                                    for c in 0..<rw {
                                        let (red, green, blue) = (Float(line[c * 3]), Float(line[c * 3 + 1]), Float(line[c * 3 + 2]))
                                        for k in offsets[x + c]..<offsets[x + c + 1] {
                                            let o = Int(targets[k]) * 3, wx = weights[k]
                                            across[o] += wx * red
                                            across[o + 1] += wx * green
                                            across[o + 2] += wx * blue
                                        }
                                    }
                                    for k in rowOffsets[y + r]..<rowOffsets[y + r + 1] {
                                        let base = Int(rowTargets[k]) * w * 3, wy = rowWeights[k]
                                        for i in touched { sums[base + i] += wy * across[i] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The average, once every region has been added, as 8-bit RGB.
    public func averagedPicture() -> PixelBuffer<UInt8> {
        var out = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for i in sums.indices { out.components[i] = UInt8(max(0, min(255, sums[i].rounded()))) }
        return out
    }

    /// The softened working-size picture, once every region has been added.
    func smoothed(blurRadius: Int) -> SmoothedImage {
        let (red, green, blue) = sums.withUnsafeBufferPointer { sums in
            FloatPlane.three(width: width, height: height) { r, g, b in
                for i in 0..<(width * height) { (r[i], g[i], b[i]) = (sums[i * 3], sums[i * 3 + 1], sums[i * 3 + 2]) }
            }
        }
        return SmoothedImage(averaged: [red, green, blue], scale: scale, blurRadius: blurRadius)
    }
}

extension SmoothedImage {
    /// A working-size plane's value at full-size pixel (x, y), interpolated.
    func sample(_ plane: FloatPlane, x: Int, y: Int) -> Float {
        let fx = max(0, (Double(x) + 0.5) / scale - 0.5), fy = max(0, (Double(y) + 0.5) / scale - 0.5)
        let x0 = min(plane.width - 1, Int(fx)), y0 = min(plane.height - 1, Int(fy))
        let x1 = min(plane.width - 1, x0 + 1), y1 = min(plane.height - 1, y0 + 1)
        let tx = Float(fx - Double(x0)), ty = Float(fy - Double(y0))
        let top = plane[x0, y0] + tx * (plane[x1, y0] - plane[x0, y0])
        let bottom = plane[x0, y1] + tx * (plane[x1, y1] - plane[x0, y1])
        return top + ty * (bottom - top)
    }
}
