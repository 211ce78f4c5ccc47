import Codecs
import Containers
import Filters
import Imaging

extension StillRenderer {
    /// Rows a band of a PNG rendered by bands holds (a 200-megapixel picture's band at 16
    /// bits is about 12 MB).
    static let pngBandRows = 128

    /// A 16-bit PNG's render made a band of rows at a time: the file, its size and the
    /// orientation it is shown in, and the render averaged down (for its Exif thumbnail).
    struct BandedPNG {
        var encoded: [UInt8]
        var width: Int, height: Int
        var orientation: EXIFOrientation
        var preview: PixelBuffer<UInt8>
    }

    /// A 16-bit PNG through the recipe at 16 bits without holding it whole: read a band
    /// of rows at a time, drawn (``RegionRendering``: a pass for each step that decides
    /// by the whole picture, then one to draw) and written at once, as the tiles of a
    /// large HEIC grid are. Its leading crops, turns and flips cut a rectangle of the
    /// stored picture (a turn or flip becomes its new orientation, where it can be
    /// written: `canReorient`). It is written as ``filteredSixteenBitPNG(_:chunks:recipe:)``
    /// writes it: at the original's significant bits, gray when it was gray and stayed
    /// so, its alpha cut with it. Nil when the recipe must see the picture upright (a
    /// straighten, depth) or turns it where the orientation cannot say so, and for an
    /// interlaced PNG (its rows come in passes).
    static func renderedByBands(
        _ bytes: [UInt8], chunks: PNGChunks, recipe: FilterRecipe, shownIn orientation: EXIFOrientation, canReorient: Bool
    ) throws -> BandedPNG? {
        guard chunks.bitDepth == 16, let header = chunks.chunks.first, header.type == "IHDR", bytes[header.range.lowerBound + 8 + 12] == 0,
            let cut = tiledCut(recipe, width: chunks.width, height: chunks.height, shownIn: orientation),
            canReorient || cut.orientation == orientation,
            let rendering = RegionRendering(recipe: cut.rest, width: cut.width, height: cut.height, sixteenBit: true)
        else { return nil }
        let format = try PNGCodec.rowFormat(bytes)
        let bits = format.significantBits, ch = format.channels
        let hasAlpha = ch == 2 || ch == 4, gray = ch <= 2
        // Below 16 significant bits, samples scaled to the full range are shifted back
        // first, as a whole decode does (one pass tells which the file holds).
        var scaled = false
        if bits < 16 {
            try PNGCodec.readRows(bytes, band: pngBandRows) { (_, rows: PixelBuffer<UInt16>, _) in
                if !scaled, rows.components.contains(where: { $0 >> bits != 0 }) { scaled = true }
            }
        }
        let shift = UInt16(16 - bits)
        let rows = cut.y..<(cut.y + cut.height)
        /// The band's colour as RGB and its alpha, at the full 16-bit range, cut to the rectangle.
        func split(_ band: PixelBuffer<UInt16>) -> (rgb: PixelBuffer<UInt16>, alpha: [UInt16]?) {
            let n = band.height, w = cut.width
            var alpha = hasAlpha ? [UInt16](repeating: 0, count: w * n) : nil
            let rgb = band.components.withUnsafeBufferPointer { source in
                PixelBuffer<UInt16>(width: w, height: n, channels: 3) { out in
                    for row in 0..<n {
                        var from = (row * band.width + cut.x) * ch, to = row * w
                        for _ in 0..<w {
                            for c in 0..<3 {
                                let s = source[from + (gray ? 0 : c)]
                                out[to * 3 + c] = SampleScale.toSixteen(scaled ? s >> shift : s, bits: bits)
                            }
                            if hasAlpha {
                                let s = source[from + ch - 1]
                                alpha![to] = SampleScale.toSixteen(scaled ? s >> shift : s, bits: bits)
                            }
                            from += ch
                            to += 1
                        }
                    }
                }
            }
            return (rgb, alpha)
        }
        while rendering.needsSummary {
            try PNGCodec.readRows(bytes, rows: rows, band: pngBandRows) { (_, band: PixelBuffer<UInt16>, y) in
                UInt16.summarize(split(band).rgb, in: rendering, x: 0, y: y - cut.y)
            }
            rendering.finishSummary()
        }
        // A gray original is written gray until a band drawn has a colour; then it is
        // written again as RGB.
        for writesGray in gray ? [true, false] : [false] {
            let colours = writesGray ? 1 : 3, outChannels = colours + (hasAlpha ? 1 : 0)
            let writer = try PNGRowWriter(
                width: cut.width, height: cut.height, channels: outChannels, bitDepth: 16, significantBits: bits,
                reservingCapacity: bytes.count + bytes.count / 4)
            let preview = AreaAccumulator(width: cut.width, height: cut.height, shortSide: 512)
            var coloured = false
            try PNGCodec.readRows(bytes, rows: rows, band: pngBandRows) { (_, band: PixelBuffer<UInt16>, y) in
                guard !coloured else { return }
                var (region, alpha) = split(band)
                UInt16.draw(&region, in: rendering, x: 0, y: y - cut.y)
                if writesGray, !region.isNeutral {
                    coloured = true
                    return
                }
                preview.add(region.eightBit(), x: 0, y: y - cut.y)
                let out = region.components.withUnsafeBufferPointer { drawn in
                    PixelBuffer<UInt16>(width: region.width, height: region.height, channels: outChannels) { out in
                        for i in 0..<(region.width * region.height) {
                            for c in 0..<colours {
                                out[i * outChannels + c] = SampleScale.toSixteen(SampleScale.fromSixteen(drawn[i * 3 + c], bits: bits), bits: bits)
                            }
                            if let alpha {
                                out[i * outChannels + colours] = SampleScale.toSixteen(SampleScale.fromSixteen(alpha[i], bits: bits), bits: bits)
                            }
                        }
                    }
                }
                try writer.write(out)
            }
            if coloured { continue }
            return BandedPNG(
                encoded: try writer.finish(), width: cut.width, height: cut.height, orientation: cut.orientation, preview: preview.averagedPicture())
        }
        return nil
    }
}
