/// Builds ISOBMFF boxes: big-endian fields, full-box headers, sizes filled in at the end.
///
/// ```swift
/// var w = ISOBoxWriter()
/// w.box("ispe", version: 0, flags: 0) { $0.u32(width); $0.u32(height) }
/// ```
public struct ISOBoxWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    public mutating func u32(_ v: UInt32) { bytes += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    public mutating func u64(_ v: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((v >> UInt64(shift)) & 0xFF)) } }
    public mutating func fourCC(_ s: String) {
        let b = Array(s.utf8)
        precondition(b.count == 4, "a box type has four characters")
        bytes += b
    }
    public mutating func raw(_ b: some Sequence<UInt8>) { bytes += b }
    /// A NUL-terminated UTF-8 string.
    public mutating func cString(_ s: String) { bytes += Array(s.utf8) + [0] }

    /// An unsigned integer of `size` bytes (0, 4 or 8; 0 writes nothing).
    public mutating func uint(_ v: UInt64, size: Int) {
        switch size {
        case 0: break
        case 2: u16(UInt16(v))
        case 4: u32(UInt32(v))
        default: u64(v)
        }
    }

    /// A box whose payload `body` writes; a full box when `version` is given.
    public mutating func box(_ type: String, version: UInt8? = nil, flags: UInt32 = 0, _ body: (inout ISOBoxWriter) throws -> Void)
        rethrows
    {
        var inner = ISOBoxWriter()
        if let version {
            inner.u8(version)
            inner.u8(UInt8((flags >> 16) & 0xFF))
            inner.u8(UInt8((flags >> 8) & 0xFF))
            inner.u8(UInt8(flags & 0xFF))
        }
        try body(&inner)
        let size = 8 + inner.bytes.count
        if size <= Int(UInt32.max) {
            u32(UInt32(size))
            fourCC(type)
        } else {
            u32(1)
            fourCC(type)
            u64(UInt64(size + 8))
        }
        bytes += inner.bytes
    }
}
