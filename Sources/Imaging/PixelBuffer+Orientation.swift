extension PixelBuffer {
    /// The pixels as they are displayed when stored with `orientation`.
    ///
    /// For every displayed pixel, finds the stored pixel it comes from, so the loop writes
    /// the output sequentially.
    @inlinable
    public func applying(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let (outW, outH) = orientation.displayedSize(width: width, height: height)
        var out = PixelBuffer(width: outW, height: outH, channels: channels)
        let w = width, h = height, ch = channels
        let source = components
        out.components.withUnsafeMutableBufferPointer { dst in
            source.withUnsafeBufferPointer { src in
                var i = 0
                for y in 0..<outH {
                    for x in 0..<outW {
                        // Undo the clockwise rotation, then the mirror.
                        var sx: Int, sy: Int
                        switch orientation.quarterTurnsCW {
                        case 0: (sx, sy) = (x, y)
                        case 1: (sx, sy) = (y, h - 1 - x)
                        case 2: (sx, sy) = (w - 1 - x, h - 1 - y)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        if orientation.isMirrored { sx = w - 1 - sx }
                        let s = (sy * w + sx) * ch
                        for c in 0..<ch { dst[i + c] = src[s + c] }
                        i += ch
                    }
                }
            }
        }
        return out
    }
}
