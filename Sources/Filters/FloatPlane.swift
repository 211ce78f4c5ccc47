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

    /// A plane whose every sample `fill` writes, given its storage uninitialised: for
    /// planes made once per frame, where filling with zeros first would be a pass of its
    /// own over memory that is about to be written anyway.
    init(width: Int, height: Int, writingEvery fill: (UnsafeMutablePointer<Float>) -> Void) {
        self.width = width
        self.height = height
        let count = width * height
        values = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { fill(buffer.baseAddress!) }
            initialized = count
        }
    }

    /// Three planes whose every sample `fill` writes together, given their storage
    /// uninitialised: for a picture split into its channels in one pass.
    static func three(
        width: Int, height: Int,
        writingEvery fill: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> Void
    ) -> (FloatPlane, FloatPlane, FloatPlane) {
        let count = width * height
        var (a, b, c) = ([Float](), [Float](), [Float]())
        a = [Float](unsafeUninitializedCapacity: count) { pa, na in
            b = [Float](unsafeUninitializedCapacity: count) { pb, nb in
                c = [Float](unsafeUninitializedCapacity: count) { pc, nc in
                    if count > 0 { fill(pa.baseAddress!, pb.baseAddress!, pc.baseAddress!) }
                    nc = count
                }
                nb = count
            }
            na = count
        }
        return (FloatPlane(width: width, height: height, values: a), FloatPlane(width: width, height: height, values: b),
                FloatPlane(width: width, height: height, values: c))
    }

    private init(width: Int, height: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.values = values
    }

    subscript(x: Int, y: Int) -> Float {
        get { values[y * width + x] }
        set { values[y * width + x] = newValue }
    }

    /// A box blur of `radius` (a (2r+1)² average, edges clamped): sums along rows, then
    /// along columns, several samples at a time in vector registers (a running sum would
    /// be one long chain of dependent additions).
    func boxBlurred(radius r: Int) -> FloatPlane {
        guard r > 0, width > 0, height > 0 else { return self }
        let w = width, h = height
        let scale = 1 / Float(2 * r + 1)
        // Every sample of both passes' planes is written below.
        let rows = values.withUnsafeBufferPointer { src in
            FloatPlane(width: w, height: h) { dst in
                for y in 0..<h {
                    let s = src.baseAddress! + y * w, d = dst + y * w
                    func clamped(_ x: Int) -> Float {
                        var sum: Float = 0
                        for i in -r...r { sum += s[min(w - 1, max(0, x + i))] }
                        return sum * scale
                    }
                    var x = 0
                    while x < min(r, w) {
                        d[x] = clamped(x)
                        x += 1
                    }
                    while x + FloatVector.lanes <= w - r {
                        var sum = FloatVector.load(s + x - r)
                        for i in (-r + 1)...r { sum += FloatVector.load(s + x + i) }
                        FloatVector.store(sum * scale, d + x)
                        x += FloatVector.lanes
                    }
                    while x < w {
                        d[x] = clamped(x)
                        x += 1
                    }
                }
            }
        }
        return rows.values.withUnsafeBufferPointer { src in
            FloatPlane(width: w, height: h) { dst in
                let taps = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 2 * r + 1)
                defer { taps.deallocate() }
                for y in 0..<h {
                    for i in 0...(2 * r) { taps[i] = src.baseAddress! + min(h - 1, max(0, y + i - r)) * w }
                    let d = dst + y * w
                    var x = 0
                    while x + FloatVector.lanes <= w {
                        var sum = FloatVector.load(taps[0] + x)
                        for i in 1...(2 * r) { sum += FloatVector.load(taps[i] + x) }
                        FloatVector.store(sum * scale, d + x)
                        x += FloatVector.lanes
                    }
                    while x < w {
                        var sum: Float = 0
                        for i in 0...(2 * r) { sum += taps[i][x] }
                        d[x] = sum * scale
                        x += 1
                    }
                }
            }
        }
    }
}

/// Eight floats (SIMD4 measured slower) loaded from and stored to any address: the filters' loops over working
/// planes, written so they run in vector registers (the compiler does not vectorise loops
/// over several raw pointers that might overlap).
enum FloatVector {
    typealias V = SIMD8<Float>
    static let lanes = V.scalarCount

    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> V {
        UnsafeRawPointer(p).loadUnaligned(as: V.self)
    }

    @inline(__always) static func load(_ p: UnsafeMutablePointer<Float>) -> V {
        UnsafeRawPointer(p).loadUnaligned(as: V.self)
    }

    @inline(__always) static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
    }
}
