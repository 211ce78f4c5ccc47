/// A TIFF block's byte order, from its "II" or "MM" header, and its integers read and
/// written in that order: for edits made in place in an Exif (its thumbnail, its size).
struct TIFFByteOrder {
    let bigEndian: Bool

    /// nil when `tiff` has no TIFF header.
    init?(_ tiff: [UInt8]) {
        guard tiff.count >= 8 else { return nil }
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
    }

    func u16(_ tiff: [UInt8], _ at: Int) -> Int? {
        guard at >= 0, at + 2 <= tiff.count else { return nil }
        return bigEndian ? Int(tiff[at]) << 8 | Int(tiff[at + 1]) : Int(tiff[at + 1]) << 8 | Int(tiff[at])
    }

    func u32(_ tiff: [UInt8], _ at: Int) -> Int? {
        guard let a = u16(tiff, at), let b = u16(tiff, at + 2) else { return nil }
        return bigEndian ? a << 16 | b : b << 16 | a
    }

    /// `value` written as `bytes` (2 or 4) bytes at `at`.
    func put(_ value: Int, in tiff: inout [UInt8], at: Int, bytes: Int) {
        for i in 0..<bytes {
            let shift = 8 * (bigEndian ? bytes - 1 - i : i)
            tiff[at + i] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }
}
