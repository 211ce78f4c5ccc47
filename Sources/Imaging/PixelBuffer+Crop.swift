extension PixelBuffer {
    /// The `width`×`height` rectangle whose top-left pixel is (`x`, `y`), made in the
    /// picture's own storage: each row moved to its place in turn (a row's new place is
    /// never past where a row still to move starts), the storage's spare capacity kept.
    /// A crop of a 200-megapixel photo then holds one copy of it, not two. When the
    /// storage is shared with another buffer, it is copied first, as any change copies it.
    public consuming func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        precondition(
            x >= 0 && y >= 0 && width >= 0 && height >= 0 && x + width <= self.width && y + height <= self.height,
            "the crop lies outside the picture")
        let (stride, row, size) = (self.width * channels, width * channels, MemoryLayout<Component>.stride)
        var storage: [Component] = []
        swap(&storage, &components)
        if row > 0 {
            storage.withUnsafeMutableBytes { bytes in
                for r in 0..<height {
                    let from = ((y + r) * stride + x * channels) * size, to = r * row * size
                    // Overlapping moves are safe: this copy has memmove's semantics.
                    if from != to { (bytes.baseAddress! + to).copyMemory(from: bytes.baseAddress! + from, byteCount: row * size) }
                }
            }
        }
        storage.removeLast(storage.count - row * height)
        return PixelBuffer(width: width, height: height, channels: channels, components: storage)
    }

    /// A copy of the `width`×`height` rectangle whose top-left pixel is (`x`, `y`).
    public func rectangle(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        precondition(
            x >= 0 && y >= 0 && width >= 0 && height >= 0 && x + width <= self.width && y + height <= self.height,
            "the rectangle lies outside the picture")
        let (stride, row) = (self.width * channels, width * channels)
        return components.withUnsafeBufferPointer { source in
            PixelBuffer(width: width, height: height, channels: channels) { out in
                for r in 0..<height where row > 0 {
                    (out.baseAddress! + r * row).initialize(from: source.baseAddress! + (y + r) * stride + x * channels, count: row)
                }
            }
        }
    }
}
