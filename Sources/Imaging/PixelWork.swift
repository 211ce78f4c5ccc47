/// Work that moves whole pixels, run with each pixel as one value: a tuple of its samples
/// (three bytes, six), so its loops are compiled once per sample size and channel count
/// rather than moving a sample at a time.
protocol PixelWork {
    /// The work over pixels of `units` values of `P` each (1, but for a pixel shape without
    /// a tuple here, moved as `units` bytes).
    func run<P>(_: P.Type, units: Int)
}

extension PixelWork {
    /// ``run(_:units:)`` for pixels of `channels` samples of `sampleBytes` bytes each: a
    /// UInt8, a UInt16 or a Float, each pixel a tuple of them.
    func run(sampleBytes: Int, channels: Int) {
        switch (sampleBytes, channels) {
        case (1, 1): run(UInt8.self, units: 1)
        case (1, 2): run((UInt8, UInt8).self, units: 1)
        case (1, 3): run((UInt8, UInt8, UInt8).self, units: 1)
        case (1, 4): run((UInt8, UInt8, UInt8, UInt8).self, units: 1)
        case (2, 1): run(UInt16.self, units: 1)
        case (2, 2): run((UInt16, UInt16).self, units: 1)
        case (2, 3): run((UInt16, UInt16, UInt16).self, units: 1)
        case (2, 4): run((UInt16, UInt16, UInt16, UInt16).self, units: 1)
        case (4, 1): run(Float.self, units: 1)
        case (4, 2): run((Float, Float).self, units: 1)
        case (4, 3): run((Float, Float, Float).self, units: 1)
        case (4, 4): run((Float, Float, Float, Float).self, units: 1)
        default: run(UInt8.self, units: sampleBytes * channels)
        }
    }
}

/// One pixel (`units` values) from `src` to `dst`.
@inline(__always)
func movePixel<P>(_ dst: UnsafeMutablePointer<P>, _ src: UnsafePointer<P>, units: Int) {
    if units == 1 { dst.pointee = src.pointee } else { dst.update(from: src, count: units) }
}
