/// One channel of floating-point samples, row-major: the working form of the filters
/// that look at a picture as a whole (comic, posterize) at a reduced size.
struct FloatPlane: Sendable {
    let width: Int
    let height: Int
    var values: [Float]

    init(width: Int, height: Int, repeating value: Float = 0) {
        self.width = width
        self.height = height
        values = [Float](repeating: value, count: width * height)
    }

    subscript(x: Int, y: Int) -> Float {
        get { values[y * width + x] }
        set { values[y * width + x] = newValue }
    }

    /// A box blur of `radius` (a (2r+1)² average, edges clamped), by running sums along
    /// rows, then along columns.
    func boxBlurred(radius r: Int) -> FloatPlane {
        guard r > 0, width > 0, height > 0 else { return self }
        let w = width, h = height
        var rows = FloatPlane(width: w, height: h)
        let scale = 1 / Float(2 * r + 1)
        values.withUnsafeBufferPointer { src in
            rows.values.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let s = src.baseAddress! + y * w, d = dst.baseAddress! + y * w
                    var sum: Float = 0
                    for i in -r...r { sum += s[min(w - 1, max(0, i))] }
                    for x in 0..<w {
                        d[x] = sum * scale
                        sum += s[min(w - 1, x + r + 1)] - s[max(0, x - r)]
                    }
                }
            }
        }
        var out = FloatPlane(width: w, height: h)
        rows.values.withUnsafeBufferPointer { src in
            out.values.withUnsafeMutableBufferPointer { dst in
                var sums = [Float](repeating: 0, count: w)
                for i in -r...r {
                    let row = src.baseAddress! + min(h - 1, max(0, i)) * w
                    for x in 0..<w { sums[x] += row[x] }
                }
                for y in 0..<h {
                    let d = dst.baseAddress! + y * w
                    let add = src.baseAddress! + min(h - 1, y + r + 1) * w, remove = src.baseAddress! + max(0, y - r) * w
                    for x in 0..<w {
                        d[x] = sums[x] * scale
                        sums[x] += add[x] - remove[x]
                    }
                }
            }
        }
        return out
    }
}
