import Imaging

/// Any rectangle of a grid image as stored, put together from its tiles, each decoded
/// when first needed. A tile is kept while part of it to the right of or below the last
/// rectangle read from it is left, of the rows last read: a pass that reads rectangles
/// row by row (a crop of a 200-megapixel grid, cut into new tiles) decodes each tile
/// once and holds at most two rows of them; one that reads the tiles themselves holds none.
public final class HEIFTileReader<T: PixelComponent> {
    public let tiling: HEIFImage.Tiling
    private let decode: (_ column: Int, _ row: Int) throws -> PixelBuffer<T>
    /// Decoded tiles, by row × columns + column.
    private var kept: [Int: PixelBuffer<T>] = [:]

    /// `decode` gives tile (column, row) at the tiling's tile size, RGB.
    public init(tiling: HEIFImage.Tiling, decode: @escaping (_ column: Int, _ row: Int) throws -> PixelBuffer<T>) {
        (self.tiling, self.decode) = (tiling, decode)
    }

    /// The width×height rectangle whose top-left pixel is (x, y) of the stored picture.
    public func region(x: Int, y: Int, width: Int, height: Int) throws -> PixelBuffer<T> {
        let t = tiling
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= t.width && y + height <= t.height, "a rectangle of the picture")
        let rows = (y / t.tileHeight)...((y + height - 1) / t.tileHeight)
        let columns = (x / t.tileWidth)...((x + width - 1) / t.tileWidth)
        kept = kept.filter { rows.contains($0.key / t.columns) }
        var out = PixelBuffer<T>(width: width, height: height, channels: 3)
        for row in rows {
            for column in columns {
                let key = row * t.columns + column
                let tile = try kept[key] ?? decode(column, row)
                guard tile.width == t.tileWidth, tile.height == t.tileHeight, tile.channels == 3 else {
                    throw HEIFError(
                        code: -1, subcode: 0, message: "tile \(column),\(row) is \(tile.width)x\(tile.height), not the grid's \(t.tileWidth)x\(t.tileHeight)",
                        context: "reading the grid")
                }
                // The part of the tile inside the rectangle.
                let (left, top) = (column * t.tileWidth, row * t.tileHeight)
                let (x0, x1) = (max(x, left), min(x + width, left + t.tileWidth))
                let (y0, y1) = (max(y, top), min(y + height, top + t.tileHeight))
                let count = (x1 - x0) * 3
                for sy in y0..<y1 {
                    let dst = ((sy - y) * width + (x0 - x)) * 3, src = ((sy - top) * t.tileWidth + (x0 - left)) * 3
                    out.components.replaceSubrange(dst..<(dst + count), with: tile.components[src..<(src + count)])
                }
                let restLeft = x1 < min(left + t.tileWidth, t.width) || y1 < min(top + t.tileHeight, t.height)
                kept[key] = restLeft ? tile : nil
            }
        }
        return out
    }
}
