/// A rectangle of a picture's pixels: its top-left pixel and its size.
public struct PixelRegion: Sendable, Equatable {
    public var x, y, width, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }
}
