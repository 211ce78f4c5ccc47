/// A component type a ``PixelBuffer`` can hold: 8-bit and 16-bit integers, and 32-bit
/// floats for depth and disparity maps.
public protocol PixelComponent: Sendable, Equatable {
    static var zero: Self { get }
}
extension UInt8: PixelComponent {}
extension UInt16: PixelComponent {}
extension Float: PixelComponent {}

/// Interleaved pixels, row-major, no padding between rows.
///
/// `channels` is 1 (gray, depth, matte), 3 (RGB) or 4 (RGBA).
/// ```swift
/// var thumb = PixelBuffer<UInt8>(width: 320, height: 240, channels: 3)
/// thumb[x: 0, y: 0, channel: 0] = 255
/// ```
public struct PixelBuffer<Component: PixelComponent>: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public var components: [Component]

    /// A buffer filled with zeros (inlinable, so that the zeros are written by code made
    /// for the component type, not copied one by one through its generic witness).
    @inlinable
    public init(width: Int, height: Int, channels: Int) {
        precondition(width >= 0 && height >= 0 && (1...4).contains(channels), "invalid pixel buffer shape")
        self.width = width
        self.height = height
        self.channels = channels
        self.components = Array(repeating: .zero, count: width * height * channels)
    }

    /// A buffer whose every component `initialize` writes (it is handed the memory
    /// unfilled: a movie frame's copies skip zeroing megabytes they overwrite at once).
    @inlinable
    public init(width: Int, height: Int, channels: Int, writingEvery initialize: (UnsafeMutableBufferPointer<Component>) -> Void) {
        precondition(width >= 0 && height >= 0 && (1...4).contains(channels), "invalid pixel buffer shape")
        self.width = width
        self.height = height
        self.channels = channels
        let count = width * height * channels
        self.components = Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            initialize(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
    }

    /// Wraps existing components; their count must be `width * height * channels`.
    @inlinable
    public init(width: Int, height: Int, channels: Int, components: [Component]) {
        precondition(components.count == width * height * channels, "component count does not match the shape")
        self.width = width
        self.height = height
        self.channels = channels
        self.components = components
    }

    /// Components per row.
    @inlinable public var rowStride: Int { width * channels }

    @inlinable public subscript(x x: Int, y y: Int, channel c: Int) -> Component {
        get { components[(y * width + x) * channels + c] }
        set { components[(y * width + x) * channels + c] = newValue }
    }
}
