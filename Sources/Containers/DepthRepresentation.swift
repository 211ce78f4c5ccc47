/// The depth representation information of ISO/IEC 23008-2 (HEVC) Annex F.14.3.3 (SEI
/// payload 177), as HEIF carries it for a depth auxiliary image: after the URN in the
/// item's `auxC` box, as a length, a NAL unit length and a prefix SEI NAL unit. libheif
/// (`heif_image_handle_get_depth_image_representation_info`) reads it from there.
public struct DepthRepresentation: Sendable, Equatable, Codable {
    /// depth_representation_type; the raw values are camlib's names for them.
    public enum Kind: String, Sendable, Codable {
        case uniformInverseZ, uniformDisparity, uniformZ, nonuniformDisparity

        /// The SEI's depth_representation_type.
        public var code: UInt32 {
            switch self {
            case .uniformInverseZ: 0
            case .uniformDisparity: 1
            case .uniformZ: 2
            case .nonuniformDisparity: 3
            }
        }
    }

    public var kind: Kind
    public var zNear: Double?
    public var zFar: Double?
    public var dMin: Double?
    public var dMax: Double?

    public init(kind: Kind, zNear: Double?, zFar: Double?, dMin: Double? = nil, dMax: Double? = nil) {
        (self.kind, self.zNear, self.zFar, self.dMin, self.dMax) = (kind, zNear, zFar, dMin, dMax)
    }

    /// The bytes that follow the URN in `auxC`. camlib writes the uniform kinds only: a
    /// non-uniform disparity also needs its model's knots, so it gets no subtype ([]).
    public var auxSubtype: [UInt8] {
        guard kind != .nonuniformDisparity else { return [] }
        var bits = BitWriter()
        bits.write(zNear != nil ? 1 : 0, count: 1)
        bits.write(zFar != nil ? 1 : 0, count: 1)
        bits.write(dMin != nil ? 1 : 0, count: 1)
        bits.write(dMax != nil ? 1 : 0, count: 1)
        bits.writeUE(kind.code)
        if dMin != nil || dMax != nil { bits.writeUE(0) }  // disparity_ref_view_id
        for value in [zNear, zFar, dMin, dMax].compactMap({ $0 }) { Self.writeElement(value, into: &bits) }
        let payload = bits.bytes
        // Prefix SEI NAL (type 39), one payload of type 177, RBSP trailing bits.
        let nal: [UInt8] = [0x4E, 0x01, 177, UInt8(payload.count)] + payload + [0x80]
        let nalSize = UInt32(nal.count)
        let length = nalSize + 4
        return be(length) + be(nalSize) + nal
    }

    /// depth_rep_info_element: sign, 7-bit exponent, 5-bit mantissa length - 1, mantissa;
    /// x = 2^(e - 31) * (1 + n / 2^v), or 2^-(30 + v) * n when e = 0.
    static func writeElement(_ x: Double, into bits: inout BitWriter) {
        let v = 24
        let magnitude = abs(x)
        bits.write(x < 0 ? 1 : 0, count: 1)
        guard magnitude > 0 else {
            bits.write(0, count: 7)
            bits.write(UInt32(v - 1), count: 5)
            bits.write(0, count: v)
            return
        }
        var e = Int(Double(magnitude.exponent)) + 31  // floor(log2(x))
        e = min(126, max(1, e))
        let fraction = magnitude / pow2(e - 31) - 1
        let n = UInt32(min(Double((1 << v) - 1), max(0, (fraction * Double(1 << v)).rounded())))
        bits.write(UInt32(e), count: 7)
        bits.write(UInt32(v - 1), count: 5)
        bits.write(n, count: v)
    }

    private static func pow2(_ e: Int) -> Double { e >= 0 ? Double(1 << e) : 1 / Double(1 << -e) }
    private func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}

/// Bits, most significant first, as H.26x syntax writes them.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0  // bits used in the last byte

    mutating func write(_ value: UInt32, count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) {
            if used == 0 { bytes.append(0) }
            if (value >> UInt32(i)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> used) }
            used = (used + 1) % 8
        }
    }

    /// Exp-Golomb ue(v).
    mutating func writeUE(_ value: UInt32) {
        let coded = value + 1
        let length = 32 - coded.leadingZeroBitCount
        write(0, count: length - 1)
        write(coded, count: length)
    }
}
