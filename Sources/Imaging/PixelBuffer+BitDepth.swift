extension PixelBuffer where Component == UInt16 {
    /// The picture at 8 bits per sample, each rounded to the nearest of 256 levels
    /// (v·255/65535).
    public func eightBit() -> PixelBuffer<UInt8> { eightBit(rows: 0..<height) }

    /// The rows `rows` of the picture at 8 bits per sample, rounded as ``eightBit()``.
    public func eightBit(rows: Range<Int>) -> PixelBuffer<UInt8> {
        precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "rows of the picture")
        var out = PixelBuffer<UInt8>(width: width, height: rows.count, channels: channels)
        let first = rows.lowerBound * width * channels
        components.withUnsafeBufferPointer { src in
            out.components.withUnsafeMutableBufferPointer { dst in
                for i in dst.indices { dst[i] = UInt8(truncatingIfNeeded: SampleScale.fromSixteen(src[first + i], bits: 8)) }
            }
        }
        return out
    }
}

extension PixelBuffer where Component == UInt8 {
    /// The picture at 16 bits per sample, each byte repeated (255 becomes 65535).
    public func sixteenBit() -> PixelBuffer<UInt16> {
        var out = PixelBuffer<UInt16>(width: width, height: height, channels: channels)
        components.withUnsafeBufferPointer { src in
            out.components.withUnsafeMutableBufferPointer { dst in
                for i in src.indices { dst[i] = UInt16(src[i]) &* 257 }
            }
        }
        return out
    }
}

/// Samples between a bit depth and the full 16-bit range.
public enum SampleScale {
    /// A `bits`-bit sample (1...16) at 16 bits by left bit replication (the PNG
    /// specification's scaling): the top `bits` bits are the sample.
    @inlinable
    public static func toSixteen(_ v: UInt16, bits: Int) -> UInt16 {
        guard bits > 0, bits < 16 else { return v }
        var out = UInt32(v) << (16 - bits)
        var shift = 16 - 2 * bits
        while shift > -bits {
            out |= shift >= 0 ? UInt32(v) << shift : UInt32(v) >> -shift
            shift -= bits
        }
        return UInt16(truncatingIfNeeded: out)
    }

    /// ``fromSixteen(_:bits:)`` of every 16-bit value, little-endian (as libheif holds
    /// deeper samples): a table to look samples up in.
    public static func levelsFromSixteen(bits: Int) -> [UInt16] {
        (0...65535).map { fromSixteen(UInt16($0), bits: bits).littleEndian }
    }

    /// A 16-bit sample rounded to the nearest `bits`-bit level (v·(2^bits − 1)/65535).
    @inlinable
    public static func fromSixteen(_ v: UInt16, bits: Int) -> UInt16 {
        guard bits > 0, bits < 16 else { return v }
        let top = UInt32(1) << bits - 1
        return UInt16(truncatingIfNeeded: (UInt32(v) * top + 32767) / 65535)
    }
}
