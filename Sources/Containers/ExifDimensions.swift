/// The picture's size an Exif TIFF declares, written again in place after a crop or a
/// turn: `PixelXDimension` and `PixelYDimension` (0xA002, 0xA003) of the Exif IFD, and
/// `ImageWidth` and `ImageLength` (0x0100, 0x0101) of IFD0 where a camera wrote them,
/// and, when the render is shown another way, IFD0's `Orientation` (0x0112) where there
/// is one. Each keeps its type (SHORT or LONG) and its place; every other byte stays.
public enum ExifDimensions {
    /// `tiff` declaring `width`×`height`, and `orientation` (an Exif value, 1...8) when
    /// given; a value that does not fit its SHORT is left.
    public static func replacing(in tiff: inout [UInt8], width: Int, height: Int, orientation: Int? = nil) {
        guard let order = TIFFByteOrder(tiff) else { return }
        func u16(_ at: Int) -> Int? { order.u16(tiff, at) }
        func u32(_ at: Int) -> Int? { order.u32(tiff, at) }
        func put(_ value: Int, at: Int, bytes: Int) { order.put(value, in: &tiff, at: at, bytes: bytes) }
        /// The entries of the IFD at `offset` whose tags are in `values`, rewritten.
        func rewrite(ifd offset: Int, _ values: [UInt16: Int]) -> Int? {
            guard let count = u16(offset), count < 1000, offset + 2 + 12 * count <= tiff.count else { return nil }
            var exifIFD: Int?
            for i in 0..<count {
                let entry = offset + 2 + 12 * i
                guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { return exifIFD }
                if tag == 0x8769 { exifIFD = u32(entry + 8) }
                guard let value = values[UInt16(tag)], n == 1 else { continue }
                if type == 3, value <= 0xFFFF { put(value, at: entry + 8, bytes: 2) }
                if type == 4 { put(value, at: entry + 8, bytes: 4) }
            }
            return exifIFD
        }
        guard let ifd0 = u32(4) else { return }
        var first = [UInt16(0x0100): width, 0x0101: height]
        if let orientation { first[0x0112] = orientation }
        if let exif = rewrite(ifd: ifd0, first) {
            _ = rewrite(ifd: exif, [0xA002: width, 0xA003: height])
        }
    }
}
