/// The largest picture any of camlib's decoders decodes, whatever for (previews,
/// thumbnails, proxies, aux PNGs, edits): a file declaring more is refused from its
/// header, before anything is allocated. A 4 KB JPEG can declare 20000x20000, and
/// libjpeg's progressive decoder holds every coefficient of the picture however small
/// the scale it is asked for (2.4 GB for that file).
public enum DecodeLimits {
    /// 200 megapixels: a 200-megapixel JPEG edit peaks at about 640 MB.
    public static let maximumPixels = 200_000_000

    /// Why a picture of `width` x `height` is refused, or nil when it may be decoded.
    public static func refusal(width: Int, height: Int) -> String? {
        guard width > 0, height > 0 else { return "the picture declares an empty size (\(width)x\(height))" }
        let pixels = width * height
        guard pixels > maximumPixels else { return nil }
        return "the picture declares \(width)x\(height) (\(pixels / 1_000_000) megapixels); camlib decodes pictures of up to \(maximumPixels / 1_000_000) megapixels"
    }
}
