extension PixelBuffer {
    /// The picture at `width`×`height` (at least its own size): the pixels beyond it
    /// repeat its last column and row, as an encoder's tile or block at a picture's edge
    /// wants them (no hard border to spend bits on).
    public func padded(toWidth width: Int, height: Int) -> PixelBuffer {
        precondition(width >= self.width && height >= self.height && self.width > 0 && self.height > 0, "padding only grows a picture")
        guard width != self.width || height != self.height else { return self }
        var out = PixelBuffer(width: width, height: height, channels: channels)
        let ch = channels
        for y in 0..<height {
            let sy = min(y, self.height - 1)
            let src = sy * self.width * ch, dst = y * width * ch
            out.components.replaceSubrange(dst..<(dst + self.width * ch), with: components[src..<(src + self.width * ch)])
            let last = Array(components[(src + (self.width - 1) * ch)..<(src + self.width * ch)])
            for x in self.width..<width {
                for c in 0..<ch { out.components[dst + x * ch + c] = last[c] }
            }
        }
        return out
    }
}
