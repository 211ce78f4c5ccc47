public import CVector

extension SIMD4 where Scalar == Float {
    /// Each lane within `low ... high` lane by lane (`low` where it is NaN): one maximum
    /// and one minimum instruction, where the standard library's `clamped(lowerBound:
    /// upperBound:)` and `replacing(with:where:)` are written lane by lane, and LLVM put
    /// them back together for SSE2 as compares, shuffles and a branch for some lanes.
    @inlinable @inline(__always)
    public func clamped(_ low: Self, _ high: Self) -> Self {
        camlib_min4(camlib_max4(self, low), high)
    }

    @inlinable @inline(__always)
    public func clamped(_ low: Float, _ high: Float) -> Self {
        clamped(Self(repeating: low), Self(repeating: high))
    }

    /// Each lane's absolute value, as one maximum instruction (of it and its negation).
    @inlinable @inline(__always)
    public var magnitudes: Self { camlib_max4(self, -self) }
}

extension SIMD8 where Scalar == Float {
    /// As `SIMD4.clamped`, a half at a time.
    @inlinable @inline(__always)
    public func clamped(_ low: Self, _ high: Self) -> Self {
        Self(lowHalf: lowHalf.clamped(low.lowHalf, high.lowHalf), highHalf: highHalf.clamped(low.highHalf, high.highHalf))
    }

    @inlinable @inline(__always)
    public func clamped(_ low: Float, _ high: Float) -> Self {
        clamped(Self(repeating: low), Self(repeating: high))
    }

    /// As `SIMD4.magnitudes`, a half at a time.
    @inlinable @inline(__always)
    public var magnitudes: Self { Self(lowHalf: lowHalf.magnitudes, highHalf: highHalf.magnitudes) }
}
