/// Floats of 0 ... 255 rounded to the nearest byte (ties to even) without the range
/// checks of `UInt8(_:)`, which cost more than the arithmetic around them: adding
/// 1.5·2²³ to a float of 0 ... 2²² leaves it rounded to a whole number in the low bits of
/// its mantissa. The one place this trick is written, for every module that draws bytes.
public enum NearestByte {
    /// 1.5·2²³. Adding it and taking it away again rounds a float to a whole number.
    @inlinable public static var rounder: Float { 12_582_912 }

    /// Each lane (0 ... 255 expected) rounded, in the low byte of its word.
    @inlinable @inline(__always) public static func words(_ v: SIMD8<Float>) -> SIMD8<UInt32> {
        unsafeBitCast(v + SIMD8(repeating: rounder), to: SIMD8<UInt32>.self)
    }

    /// Each lane clamped to 0 ... 255 and rounded, in the low byte of its word.
    @inlinable @inline(__always) public static func words(clamping v: SIMD8<Float>) -> SIMD8<UInt32> {
        words(v.clamped(0, 255))
    }

    /// Each lane clamped to 0 ... 255 and rounded, as bytes.
    @inlinable @inline(__always) public static func bytes(clamping v: SIMD4<Float>) -> SIMD4<UInt8> {
        SIMD4(truncatingIfNeeded: unsafeBitCast(v.clamped(0, 255) + SIMD4(repeating: rounder), to: SIMD4<UInt32>.self))
    }

    /// `v` (0 ... 255 expected) rounded, as a byte.
    @inlinable @inline(__always) public static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (v + rounder).bitPattern)
    }
}
