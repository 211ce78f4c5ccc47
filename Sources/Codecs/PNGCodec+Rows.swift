#if canImport(Glibc)
import Glibc
#endif
internal import CPNGCodec
import Imaging

extension PNGCodec {
    /// What a PNG's rows hold, as ``readRows(_:band:maxPixels:_:)`` gives them.
    public struct RowFormat: Sendable, Equatable {
        public let width: Int, height: Int
        /// 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA (a palette as RGB, a tRNS chunk as alpha).
        public let channels: Int
        /// 8 or 16 (1, 2 and 4-bit gray come as 8).
        public let bitDepth: Int
        /// From the sBIT chunk, else `bitDepth`.
        public let significantBits: Int
        /// The gamma its samples are encoded with: the gAMA chunk's (0.45455 for an sRGB
        /// chunk); nil for neither.
        public var gamma: Double? = nil

        /// The gamma libpng's simplified API corrects the samples from, for an sRGB screen
        /// (taken as gamma 2.2): the file's, where the two differ by more than 5%; nil
        /// where the samples are taken as sRGB as they are.
        public var correctedGamma: Double? { gamma.flatMap { abs($0 * 2.2 - 1) > 0.05 ? $0 : nil } }
    }

    /// Each of `levels` sample values encoded with `gamma` (light is the sample to the
    /// power 1/`gamma`) as the 8-bit sRGB value libpng's simplified API makes of an
    /// opaque sample.
    public static func sRGBLevels(levels: Int, gamma: Double) -> [UInt8] {
        let top = Double(levels - 1)
        return (0..<levels).map { UInt8(max(0, min(255, (pow(Double($0) / top, 1 / (gamma * 2.2)) * 255).rounded()))) }
    }

    /// The format of a PNG's rows, read from its header chunks alone.
    public static func rowFormat(_ png: [UInt8], maxPixels: Int = DecodeLimits.maximumPixels) throws -> RowFormat {
        try png.withUnsafeBytes { bytes in
            var decoded = cpng_decoded()
            var error = cpng_error()
            guard let reader = cpng_row_reader_open(bytes.baseAddress, bytes.count, maxPixels, &decoded, &error) else {
                throw PNGError(message: message(error))
            }
            cpng_row_reader_free(reader)
            return RowFormat(decoded)
        }
    }

    /// A non-interlaced PNG read top to bottom, `band` rows at a time, without holding
    /// it whole: its samples exactly as ``decodeSamples(_:maxPixels:keepingAlpha:)``
    /// gives them with alpha kept, but for the sBIT shift (16-bit samples come as
    /// stored). `rows`: the rows wanted (all when nil); those above them are read and
    /// dropped, those below are not read. `body` gets each band (the last may be
    /// shorter) and its first row. `T` must be the PNG's depth: `UInt8` for 8 bits or
    /// fewer, `UInt16` for 16.
    public static func readRows<T: PixelComponent & FixedWidthInteger>(
        _ png: [UInt8], rows wanted: Range<Int>? = nil, band: Int, maxPixels: Int = DecodeLimits.maximumPixels,
        _ body: (_ format: RowFormat, _ rows: consuming PixelBuffer<T>, _ y: Int) throws -> Void
    ) throws {
        precondition(band > 0, "a band has rows")
        try png.withUnsafeBytes { bytes in
            var decoded = cpng_decoded()
            var error = cpng_error()
            guard let reader = cpng_row_reader_open(bytes.baseAddress, bytes.count, maxPixels, &decoded, &error) else {
                throw PNGError(message: message(error))
            }
            defer { cpng_row_reader_free(reader) }
            let format = RowFormat(decoded)
            guard format.bitDepth == T.bitWidth else {
                throw PNGError(message: "the PNG has \(format.bitDepth)-bit samples, not \(T.bitWidth)-bit")
            }
            let range = (wanted ?? 0..<format.height).clamped(to: 0..<format.height)
            func read(_ count: Int, into rows: inout PixelBuffer<T>) throws {
                let ok = rows.components.withUnsafeMutableBytes { cpng_row_reader_read(reader, $0.baseAddress, UInt32(count), &error) }
                guard ok != 0 else { throw PNGError(message: message(error)) }
            }
            if range.lowerBound > 0 {
                var dropped = PixelBuffer<T>(width: format.width, height: min(band, range.lowerBound), channels: format.channels)
                var y = 0
                while y < range.lowerBound {
                    let count = min(band, range.lowerBound - y)
                    try read(count, into: &dropped)
                    y += count
                }
            }
            var y = range.lowerBound
            while y < range.upperBound {
                let count = min(band, range.upperBound - y)
                // libpng writes every sample of the band, so it is not zeroed first.
                var failed = false
                let rows = PixelBuffer<T>(width: format.width, height: count, channels: format.channels) { samples in
                    guard cpng_row_reader_read(reader, samples.baseAddress, UInt32(count), &error) == 0 else { return }
                    failed = true
                    samples.initialize(repeating: .zero)
                }
                if failed { throw PNGError(message: message(error)) }
                try body(format, rows, y)
                y += count
            }
        }
    }
}

extension PNGCodec.RowFormat {
    init(_ decoded: cpng_decoded) {
        self.init(
            width: Int(decoded.width), height: Int(decoded.height), channels: Int(decoded.channels), bitDepth: Int(decoded.bit_depth),
            significantBits: Int(decoded.significant_bits), gamma: decoded.file_gamma > 0 ? Double(decoded.file_gamma) / 100_000 : nil)
    }
}
