import Codecs
import Containers
import Filters
import Imaging

extension StillRenderer {
    /// Rows a band of a PNG rendered by bands holds (a 200-megapixel picture's band at 16
    /// bits is about 12 MB, at 8 bits 6 MB).
    static let pngBandRows = 128

    /// A PNG's render made a band of rows at a time: the file, its size and the
    /// orientation it is shown in, and the render averaged down (for its Exif thumbnail,
    /// when asked for).
    struct BandedPNG {
        var encoded: [UInt8]
        var width: Int, height: Int
        var orientation: EXIFOrientation
        var preview: PixelBuffer<UInt8>?
        /// Its colours were turned into sRGB from the original's gAMA, as a whole decode
        /// turns them: the render says nothing of the original's gamma.
        var correctedToSRGB: Bool
    }

    /// A PNG through the recipe at its depth (8 or 16 bits) without holding it whole: read a band
    /// of rows at a time, drawn (``RegionRendering``: a pass for each step that decides
    /// by the whole picture, then one to draw) and written at once, as the tiles of a
    /// large HEIC grid are. Its leading geometry cuts a rectangle of the stored picture
    /// (a turn or flip becomes its new orientation, where it can be written:
    /// `canReorient`) or, straightening, resamples it from the rows each band reads
    /// (those held while a band to come still reads them). A 16-bit PNG is written as
    /// ``filteredSixteenBitPNG(_:chunks:recipe:)`` writes it: at the original's
    /// significant bits. Either depth stays gray when it was gray and stayed so, its alpha
    /// reshaped with it; a 16-bit PNG's samples as stored (a gAMA chunk still says how to
    /// read them), an 8-bit one's colours turned into sRGB from a gAMA libpng would
    /// correct, as the whole 8-bit decode turns them (a palette becomes RGB). Nil when the
    /// recipe must see the picture whole or upright
    /// (depth, geometry between other steps) or turns it where the orientation cannot say
    /// so, and for an interlaced PNG (its rows come in passes). `keepsPreview`: the render
    /// is averaged down as it is drawn.
    static func renderedByBands(
        _ bytes: [UInt8], chunks: PNGChunks, recipe: FilterRecipe, shownIn orientation: EXIFOrientation, canReorient: Bool,
        keepsPreview: Bool
    ) throws -> BandedPNG? {
        guard let header = chunks.chunks.first, header.type == "IHDR", bytes[header.range.lowerBound + 8 + 12] == 0,
            let cut = tiledCut(recipe, width: chunks.width, height: chunks.height, shownIn: orientation),
            canReorient || cut.orientation == orientation,
            let rendering = RegionRendering(recipe: cut.rest, width: cut.width, height: cut.height, sixteenBit: chunks.bitDepth == 16)
        else { return nil }
        return chunks.bitDepth == 16
            ? try renderedByBands(UInt16.self, bytes, cut: cut, rendering: rendering, keepsPreview: keepsPreview)
            : try renderedByBands(UInt8.self, bytes, cut: cut, rendering: rendering, keepsPreview: keepsPreview)
    }

    /// ``renderedByBands(_:chunks:recipe:shownIn:canReorient:keepsPreview:)`` for samples of
    /// type `T` (the PNG's depth as libpng gives its rows), once `cut` and `rendering` are known.
    private static func renderedByBands<T: RegionSample & FixedWidthInteger & UnsignedInteger>(
        _: T.Type, _ bytes: [UInt8], cut: TiledCut, rendering: RegionRendering, keepsPreview: Bool
    ) throws -> BandedPNG? {
        let format = try PNGCodec.rowFormat(bytes)
        // An 8-bit PNG's samples are taken as a whole decode takes them (its colours made
        // sRGB from a gamma libpng corrects); a 16-bit one's as stored, at its significant bits.
        let bits = T.bitWidth == 16 ? format.significantBits : T.bitWidth, ch = format.channels
        let gamma = T.bitWidth == 8 ? format.correctedGamma : nil
        let hasAlpha = ch == 2 || ch == 4, gray = ch <= 2
        // Below 16 significant bits, samples scaled to the full range are shifted back
        // first, as a whole decode does (one pass tells which the file holds).
        var scaled = false
        if bits < T.bitWidth {
            try PNGCodec.readRows(bytes, band: pngBandRows) { (_, rows: PixelBuffer<T>, _) in
                if !scaled, rows.components.contains(where: { $0 >> bits != 0 }) { scaled = true }
            }
        }
        // Each stored value at the full range (`full`), and each drawn one rounded to the
        // significant bits and back (`kept`): tables of every value (the identity at full
        // depth). Only 16-bit samples have fewer significant bits.
        let levels = 1 << T.bitWidth, shift = T.bitWidth - bits, identity = bits == T.bitWidth
        let full: [T] = (0..<levels).map { v in
            identity ? T(v) : T(truncatingIfNeeded: SampleScale.toSixteen(UInt16(scaled ? v >> shift : v), bits: bits))
        }
        let kept: [T] = (0..<levels).map { v in
            identity ? T(v) : T(truncatingIfNeeded: SampleScale.toSixteen(SampleScale.fromSixteen(UInt16(v), bits: bits), bits: bits))
        }
        // Each stored colour sample as drawn: `full`, or made sRGB (alpha stays as stored).
        let colour: [T] = gamma.map { PNGCodec.sRGBLevels(levels: levels, gamma: $0).map { T($0) } } ?? full
        /// Columns `x..<x + width` of rows as read: their colour as RGB and their alpha
        /// (as a plane), at the full range.
        func split(_ rows: borrowing PixelBuffer<T>, x: Int, width w: Int) -> (rgb: PixelBuffer<T>, alpha: PixelBuffer<T>?) {
            let n = rows.height, stride = rows.width
            if identity, ch == 3, gamma == nil {
                // RGB at full depth: the rows as they are, or their columns.
                if x == 0, w == stride { return (copy rows, nil) }
                let rgb = rows.components.withUnsafeBufferPointer { source in
                    PixelBuffer<T>(width: w, height: n, channels: 3) { out in
                        for row in 0..<n { (out.baseAddress! + row * w * 3).initialize(from: source.baseAddress! + (row * stride + x) * 3, count: w * 3) }
                    }
                }
                return (rgb, nil)
            }
            var alpha = hasAlpha ? PixelBuffer<T>(width: w, height: n, channels: 1) : nil
            let rgb = rows.components.withUnsafeBufferPointer { source in
                PixelBuffer<T>(width: w, height: n, channels: 3) { out in
                    for row in 0..<n {
                        var from = (row * stride + x) * ch, to = row * w
                        for _ in 0..<w {
                            for c in 0..<3 { out[to * 3 + c] = colour[Int(source[from + (gray ? 0 : c)])] }
                            if hasAlpha { alpha!.components[to] = full[Int(source[from + ch - 1])] }
                            from += ch
                            to += 1
                        }
                    }
                }
            }
            return (rgb, alpha)
        }
        /// Each band of the output before the recipe's other steps, top to bottom, and its first row.
        func forEachBand(_ body: (_ rgb: PixelBuffer<T>, _ alpha: PixelBuffer<T>?, _ y: Int) throws -> Void) throws {
            switch cut.source {
            case .rectangle(let left, let top):
                try PNGCodec.readRows(bytes, rows: top..<(top + cut.height), band: pngBandRows) { (_, rows: PixelBuffer<T>, y) in
                    let (rgb, alpha) = split(rows, x: left, width: cut.width)
                    try body(rgb, alpha, y - top)
                }
            case .resampled(let placement):
                // The rows read and still needed, as read (a band each, from its first row).
                var held: [(y: Int, rows: PixelBuffer<T>)] = []
                var next = 0
                func part(_ y: Int) -> (placement: GeometryPlacement, needs: PixelRegion) {
                    let part = placement.part(x: 0, y: y, width: cut.width, height: min(pngBandRows, cut.height - y))
                    return (part, part.sourceRegion(width: format.width, height: format.height))
                }
                try PNGCodec.readRows(bytes, band: pngBandRows) { (_, rows: PixelBuffer<T>, y) in
                    held.append((y, rows))
                    let readTo = y + rows.height
                    while next < cut.height {
                        let (placed, needs) = part(next)
                        guard needs.y + needs.height <= readTo else { break }
                        guard needs.width > 0, needs.height > 0 else {
                            throw MediaAnalyzer.Failure(reason: "internal error: the output's rows from \(next) read nothing of the picture")
                        }
                        // The rows it reads, put together from the bands held.
                        var source = PixelBuffer<T>(width: format.width, height: needs.height, channels: ch)
                        for (first, band) in held where first < needs.y + needs.height && first + band.height > needs.y {
                            let from = max(first, needs.y), to = min(first + band.height, needs.y + needs.height)
                            let rowLength = format.width * ch
                            source.components.replaceSubrange(
                                ((from - needs.y) * rowLength)..<((to - needs.y) * rowLength),
                                with: band.components[((from - first) * rowLength)..<((to - first) * rowLength)])
                        }
                        let (rgb, alpha) = split(source, x: needs.x, width: needs.width)
                        let moved = placed.within(needs)
                        try body(T.placed(rgb, by: moved), alpha.map { T.placed($0, by: moved) }, next)
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
            try forEachBand { rgb, _, y in T.summarize(rgb, in: rendering, x: 0, y: y) }
            rendering.finishSummary()
        }
        // A gray original is written gray until a band drawn has a colour; then it is
        // written again as RGB.
        for writesGray in gray ? [true, false] : [false] {
            let colours = writesGray ? 1 : 3, outChannels = colours + (hasAlpha ? 1 : 0)
            let writer = try PNGRowWriter(
                width: cut.width, height: cut.height, channels: outChannels, bitDepth: T.bitWidth, significantBits: bits,
                reservingCapacity: bytes.count + bytes.count / 4)
            let preview = keepsPreview ? AreaAccumulator(width: cut.width, height: cut.height, shortSide: 512) : nil
            var coloured = false
            try forEachBand { rgb, alpha, y in
                guard !coloured else { return }
                var region = rgb
                T.draw(&region, in: rendering, x: 0, y: y)
                if writesGray, !region.isNeutral {
                    coloured = true
                    return
                }
                preview?.add(T.eightBit(region), x: 0, y: y)
                if identity, outChannels == 3 {
                    try writer.write(region)
                    return
                }
                let out = region.components.withUnsafeBufferPointer { drawn in
                    PixelBuffer<T>(width: region.width, height: region.height, channels: outChannels) { out in
                        for i in 0..<(region.width * region.height) {
                            for c in 0..<colours { out[i * outChannels + c] = kept[Int(drawn[i * 3 + c])] }
                            if let alpha { out[i * outChannels + colours] = kept[Int(alpha.components[i])] }
                        }
                    }
                }
                try writer.write(out)
            }
            if coloured { continue }
            return BandedPNG(
                encoded: try writer.finish(), width: cut.width, height: cut.height, orientation: cut.orientation, preview: preview?.averagedPicture(),
                correctedToSRGB: gamma != nil)
        }
        return nil
    }
}
