import Imaging

/// A picture averaged down to a working size whose short side is at most `shortSide`
/// pixels, then softened: what the comic and posterize filters decide their regions and
/// lines on. Working at one size for every input is what gives a 1440-pixel movie frame
/// and its 5712-pixel still the same look, keeps sensor noise out of the decisions (a
/// still's 6x6 pixels become one sample) and keeps the costly steps small; the result is
/// read back at full size by bilinear interpolation (`UpsampledRows`), so edges between
/// regions stay smooth curves instead of blocks.
struct SmoothedImage: Sendable {
    /// Red, green, blue and Rec. 709 luma at the working size, 0 ... 255.
    let red: FloatPlane, green: FloatPlane, blue: FloatPlane, luma: FloatPlane
    /// Full-size pixels per working sample.
    let scale: Double

    init(_ image: borrowing PixelBuffer<UInt8>, shortSide: Int, blurRadius: Int) {
        precondition(image.channels == 3, "filters take RGB")
        let short = max(1, min(image.width, image.height))
        let target = min(short, shortSide)
        scale = Double(short) / Double(target)
        let w = max(1, Int((Double(image.width) / scale).rounded())), h = max(1, Int((Double(image.height) / scale).rounded()))
        var planes = Self.areaAverage(image, width: w, height: h)
        // Two box passes: close to a Gaussian, without its cost.
        for c in 0..<3 { planes[c] = planes[c].boxBlurred(radius: blurRadius).boxBlurred(radius: blurRadius) }
        (red, green, blue) = (planes[0], planes[1], planes[2])
        var y = FloatPlane(width: w, height: h)
        for i in y.values.indices { y.values[i] = 0.2126 * planes[0].values[i] + 0.7152 * planes[1].values[i] + 0.0722 * planes[2].values[i] }
        luma = y
    }

    /// Each output sample is the mean of the source pixels its area covers (partly covered
    /// pixels weighted by the part), so no pixel is skipped and none counts twice. Output
    /// rows are made in parallel, each from the source rows it covers.
    static func areaAverage(_ image: PixelBuffer<UInt8>, width w: Int, height h: Int) -> [FloatPlane] {
        let columns = AreaWeights(source: image.width, target: w), rows = AreaWeights(source: image.height, target: h)
        var red = FloatPlane(width: w, height: h), green = red, blue = red
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

    /// Fills `rows[p]` (each `width` long) with plane p at full-size row y.
    func row(_ y: Int, into rows: [UnsafeMutablePointer<Float>], scratch: UnsafeMutablePointer<Float>) {
        let sh = planes[0].height, sw = planes[0].width
        let f = max(0, (Double(y) + 0.5) * Double(sh) / Double(height) - 0.5)
        let r0 = min(sh - 1, Int(f)), r1 = min(sh - 1, r0 + 1)
        let ty = Float(f - Double(r0))
        for (p, plane) in planes.enumerated() {
            plane.values.withUnsafeBufferPointer { v in
                let a = v.baseAddress! + r0 * sw, b = v.baseAddress! + r1 * sw
                var i = 0
                while i + FloatVector.lanes <= sw {
                    let va = FloatVector.load(a + i)
                    FloatVector.store(va + ty * (FloatVector.load(b + i) - va), scratch + i)
                    i += FloatVector.lanes
                }
                while i < sw {
                    scratch[i] = a[i] + ty * (b[i] - a[i])
                    i += 1
                }
            }
            let out = rows[p]
            x0.withUnsafeBufferPointer { x0 in
                x1.withUnsafeBufferPointer { x1 in
                    tx.withUnsafeBufferPointer { tx in
                        for x in 0..<width {
                            let a = scratch[Int(x0[x])], b = scratch[Int(x1[x])]
                            out[x] = a + tx[x] * (b - a)
                        }
                    }
                }
            }
        }
    }
}

extension UpsampledRows {
    /// Calls `body` for every row y of `pixels` (RGB, this reader's size), in parallel
    /// bands: with that row of every plane read back at full size (`planes[p][x]`),
    /// `extraRows` more rows of `width` floats of scratch, and the picture's row to read
    /// and write in place.
    func forEachRow(
        of pixels: inout PixelBuffer<UInt8>, extraRows: Int,
        _ body: (_ y: Int, _ planes: [UnsafeMutablePointer<Float>], _ extra: UnsafeMutablePointer<Float>, _ row: UnsafeMutablePointer<UInt8>) -> Void
    ) {
        precondition(pixels.width == width && pixels.height == height && pixels.channels == 3, "a picture of the reader's size")
        let (w, count, working) = (width, planes.count, planes[0].width)
        pixels.components.withUnsafeMutableBufferPointer { all in
            nonisolated(unsafe) let all = all
            forEachBand(rows: height) { band in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: (count + extraRows) * w + working)
                defer { scratch.deallocate() }
                let rows = (0..<count).map { scratch + $0 * w }
                for y in band {
                    row(y, into: rows, scratch: scratch + (count + extraRows) * w)
                    body(y, rows, scratch + count * w, all.baseAddress! + y * w * 3)
                }
            }
        }
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
