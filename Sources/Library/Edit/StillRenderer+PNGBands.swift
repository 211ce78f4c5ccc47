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
    /// large HEIC grid are. Its leading geometry cuts a rectangle of the stored picture
    /// (a turn or flip becomes its new orientation, where it can be written:
    /// `canReorient`) or, straightening, resamples it from the rows each band reads
    /// (those held while a band to come still reads them). It is written as
    /// ``filteredSixteenBitPNG(_:chunks:recipe:)`` writes it: at the original's
    /// significant bits, gray when it was gray and stayed so, its alpha reshaped with it.
    /// Nil when the recipe must see the picture whole or upright (depth, geometry between
    /// other steps) or turns it where the orientation cannot say so, and for an
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
        /// Columns `x..<x + width` of rows as read: their colour as RGB and their alpha
        /// (as a plane), at the full 16-bit range.
        func split(_ rows: borrowing PixelBuffer<UInt16>, x: Int, width w: Int) -> (rgb: PixelBuffer<UInt16>, alpha: PixelBuffer<UInt16>?) {
            let n = rows.height, stride = rows.width
            var alpha = hasAlpha ? PixelBuffer<UInt16>(width: w, height: n, channels: 1) : nil
            let rgb = rows.components.withUnsafeBufferPointer { source in
                PixelBuffer<UInt16>(width: w, height: n, channels: 3) { out in
                    for row in 0..<n {
                        var from = (row * stride + x) * ch, to = row * w
                        for _ in 0..<w {
                            for c in 0..<3 {
                                let s = source[from + (gray ? 0 : c)]
                                out[to * 3 + c] = SampleScale.toSixteen(scaled ? s >> shift : s, bits: bits)
                            }
                            if hasAlpha {
                                let s = source[from + ch - 1]
                                alpha!.components[to] = SampleScale.toSixteen(scaled ? s >> shift : s, bits: bits)
                            }
                            from += ch
                            to += 1
                        }
                    }
                }
            }
            return (rgb, alpha)
        }
        /// Each band of the output before the recipe's other steps, top to bottom, and its first row.
        func forEachBand(_ body: (_ rgb: PixelBuffer<UInt16>, _ alpha: PixelBuffer<UInt16>?, _ y: Int) throws -> Void) throws {
            switch cut.source {
            case .rectangle(let left, let top):
                try PNGCodec.readRows(bytes, rows: top..<(top + cut.height), band: pngBandRows) { (_, rows: PixelBuffer<UInt16>, y) in
                    let (rgb, alpha) = split(rows, x: left, width: cut.width)
                    try body(rgb, alpha, y - top)
                }
            case .resampled(let placement):
                // The rows read and still needed, as read (a band each, from its first row).
                var held: [(y: Int, rows: PixelBuffer<UInt16>)] = []
                var next = 0
                func part(_ y: Int) -> (placement: GeometryPlacement, needs: PixelRegion) {
                    let part = placement.part(x: 0, y: y, width: cut.width, height: min(pngBandRows, cut.height - y))
                    return (part, part.sourceRegion(width: format.width, height: format.height))
                }
                try PNGCodec.readRows(bytes, band: pngBandRows) { (_, rows: PixelBuffer<UInt16>, y) in
                    held.append((y, rows))
                    let readTo = y + rows.height
                    while next < cut.height {
                        let (placed, needs) = part(next)
                        guard needs.y + needs.height <= readTo else { break }
                        guard needs.width > 0, needs.height > 0 else {
                            throw MediaAnalyzer.Failure(reason: "internal error: the output's rows from \(next) read nothing of the picture")
                        }
                        // The rows it reads, put together from the bands held.
                        var source = PixelBuffer<UInt16>(width: format.width, height: needs.height, channels: ch)
                        for (first, band) in held where first < needs.y + needs.height && first + band.height > needs.y {
                            let from = max(first, needs.y), to = min(first + band.height, needs.y + needs.height)
                            let rowLength = format.width * ch
                            source.components.replaceSubrange(
                                ((from - needs.y) * rowLength)..<((to - needs.y) * rowLength),
                                with: band.components[((from - first) * rowLength)..<((to - first) * rowLength)])
                        }
                        let (rgb, alpha) = split(source, x: needs.x, width: needs.width)
                        let moved = placed.within(needs)
                        try body(moved.apply(to: rgb), alpha.map { moved.apply(to: $0) }, next)
                        next += placed.height
                        // Bands no band to come reads.
                        if next < cut.height {
                            let top = part(next).needs.y
                            held.removeAll { $0.y + $0.rows.height <= top }
                        }
                    }
                }
                guard next == cut.height else {
                    throw MediaAnalyzer.Failure(reason: "internal error: the PNG's rows ended before the output's row \(next)")
                }
            }
        }
        while rendering.needsSummary {
            try forEachBand { rgb, _, y in UInt16.summarize(rgb, in: rendering, x: 0, y: y) }
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
            try forEachBand { rgb, alpha, y in
                guard !coloured else { return }
                var region = rgb
                UInt16.draw(&region, in: rendering, x: 0, y: y)
                if writesGray, !region.isNeutral {
                    coloured = true
                    return
                }
                preview.add(region.eightBit(), x: 0, y: y)
                let out = region.components.withUnsafeBufferPointer { drawn in
                    PixelBuffer<UInt16>(width: region.width, height: region.height, channels: outChannels) { out in
                        for i in 0..<(region.width * region.height) {
                            for c in 0..<colours {
                                out[i * outChannels + c] = SampleScale.toSixteen(SampleScale.fromSixteen(drawn[i * 3 + c], bits: bits), bits: bits)
                            }
                            if let alpha {
                                out[i * outChannels + colours] = SampleScale.toSixteen(SampleScale.fromSixteen(alpha.components[i], bits: bits), bits: bits)
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
