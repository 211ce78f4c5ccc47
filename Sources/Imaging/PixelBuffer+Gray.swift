extension PixelBuffer where Component == UInt8 {
    /// The picture as one gray channel when every pixel's three channels are equal; nil
    /// when any pixel has a colour (or the picture is not RGB).
    public func grayIfNeutral() -> PixelBuffer<UInt8>? {
        guard channels == 3 else { return nil }
        var gray = PixelBuffer<UInt8>(width: width, height: height, channels: 1)
        let neutral = components.withUnsafeBufferPointer { rgb in
            gray.components.withUnsafeMutableBufferPointer { out in
                for i in 0..<(width * height) {
                    let (r, g, b) = (rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2])
                    guard r == g, g == b else { return false }
                    out[i] = r
                }
                return true
            }
        }
        return neutral ? gray : nil
    }
}

extension PixelBuffer {
    /// Whether the picture is RGB with every pixel's three channels equal.
    public var isNeutral: Bool {
        guard channels == 3 else { return false }
        return components.withUnsafeBufferPointer { rgb in
            for i in 0..<(width * height) where rgb[i * 3] != rgb[i * 3 + 1] || rgb[i * 3 + 1] != rgb[i * 3 + 2] { return false }
            return true
        }
    }
}
