extension ImageSamples {
    /// One channel, when this is gray already or RGB whose three channels are equal in
    /// every pixel (what many tools write for a gray image); nil for a colour image.
    public var gray: ImageSamples? {
        switch self {
        case .eight(let p): Self.gray(p).map { .eight($0) }
        case .sixteen(let p, let bits): Self.gray(p).map { .sixteen($0, significantBits: bits) }
        }
    }

    private static func gray<C: PixelComponent>(_ p: PixelBuffer<C>) -> PixelBuffer<C>? {
        if p.channels == 1 { return p }
        guard p.channels == 3 else { return nil }
        var out = PixelBuffer<C>(width: p.width, height: p.height, channels: 1)
        for i in 0..<(p.width * p.height) {
            let r = p.components[i * 3]
            guard r == p.components[i * 3 + 1], r == p.components[i * 3 + 2] else { return nil }
            out.components[i] = r
        }
        return out
    }
}
