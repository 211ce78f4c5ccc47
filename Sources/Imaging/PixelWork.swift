/// Work that moves whole pixels, run with each pixel as one value of a type its size
/// (three bytes, six, sixteen), so its loops are compiled once per pixel size rather than
/// a sample at a time for every sample type and channel count.
protocol PixelWork {
    /// The work over pixels of `units` values of `P` each (1, but for pixel sizes without
    /// a type of their own, moved as `units` bytes).
    func run<P>(_: P.Type, units: Int)
}

extension PixelWork {
    /// ``run(_:units:)`` for pixels of `pixelBytes` bytes.
    func run(pixelBytes: Int) {
        switch pixelBytes {
        case 1: run(UInt8.self, units: 1)
        case 2: run(UInt16.self, units: 1)
        case 3: run((UInt8, UInt8, UInt8).self, units: 1)
        case 4: run(UInt32.self, units: 1)
        case 6: run((UInt16, UInt16, UInt16).self, units: 1)
        case 8: run(UInt64.self, units: 1)
        case 12: run((UInt32, UInt32, UInt32).self, units: 1)
        case 16: run((UInt64, UInt64).self, units: 1)
        default: run(UInt8.self, units: pixelBytes)
        }
    }
}

/// One pixel (`units` values) from `src` to `dst`.
@inline(__always)
func movePixel<P>(_ dst: UnsafeMutablePointer<P>, _ src: UnsafePointer<P>, units: Int) {
    if units == 1 { dst.pointee = src.pointee } else { dst.update(from: src, count: units) }
}
