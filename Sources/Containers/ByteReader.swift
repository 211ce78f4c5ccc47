/// A malformed or truncated structure inside a file.
///
/// `context` names the structure ("JPEG APP1 segment", "MakerNote IFD entry 3"), so that
/// an error message can say where the file is broken.
public struct FormatError: Error, CustomStringConvertible, Sendable, Equatable {
    public let context: String
    public let problem: String
    public init(_ context: String, _ problem: String) {
        self.context = context
        self.problem = problem
    }
    public var description: String { "\(context): \(problem)" }
}

/// Byte order of multi-byte fields.
public enum ByteOrder: Sendable {
    case bigEndian, littleEndian
}

/// Bounds-checked reads from a byte buffer; every read past the end throws instead of
/// trapping, because every byte here comes from an untrusted file.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public var order: ByteOrder
    public let context: String

    public init(_ bytes: [UInt8], order: ByteOrder = .bigEndian, context: String) {
        self.bytes = bytes
        self.order = order
        self.context = context
    }

    public var count: Int { bytes.count }

    func check(_ offset: Int, _ length: Int) throws {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw FormatError(context, "read of \(length) bytes at offset \(offset) is past the end (\(bytes.count) bytes)")
        }
    }

    public func u8(at offset: Int) throws -> UInt8 {
        try check(offset, 1)
        return bytes[offset]
    }

    public func u16(at offset: Int) throws -> UInt16 {
        try check(offset, 2)
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return order == .bigEndian ? a << 8 | b : b << 8 | a
    }

    public func u32(at offset: Int) throws -> UInt32 {
        try check(offset, 4)
        var v: UInt32 = 0
        for i in 0..<4 {
            let byte = UInt32(bytes[offset + (order == .bigEndian ? i : 3 - i)])
            v = v << 8 | byte
        }
        return v
    }

    public func u64(at offset: Int) throws -> UInt64 {
        try check(offset, 8)
        var v: UInt64 = 0
        for i in 0..<8 {
            let byte = UInt64(bytes[offset + (order == .bigEndian ? i : 7 - i)])
            v = v << 8 | byte
        }
        return v
    }

    public func slice(at offset: Int, count length: Int) throws -> ArraySlice<UInt8> {
        try check(offset, length)
        return bytes[offset..<offset + length]
    }

    /// Four bytes as ASCII, e.g. a box type or a brand.
    public func fourCC(at offset: Int) throws -> String {
        String(decoding: try slice(at: offset, count: 4), as: UTF8.self)
    }
}
