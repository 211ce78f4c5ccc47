internal import CHeif
import Containers
import Imaging

extension HEIFEncoder {
    /// A photo too large to hold whole, encoded tile by tile as a HEIF grid (as iPhones
    /// store every photo): its tiles come one at a time from the caller.
    public struct GridStill {
        /// Tiles, their size and the stored picture's size.
        public var tiling: HEIFImage.Tiling
        /// What the file carries and how it is coded, as for a photo held whole: its
        /// orientation (irot/imir on the grid), colour profile, Exif, XMP, quality, preset,
        /// thumbnail size and byte budget (for the coded tiles together). Its pixels are
        /// not read; it is coded as HEVC.
        public var settings: Still

        public init(tiling: HEIFImage.Tiling, settings: Still) {
            self.tiling = tiling
            self.settings = settings
        }
    }

    /// Encodes a grid of HEVC tiles: `tile(column, row, trial)` gives each tile as RGB at
    /// the tiling's tile size (where it reaches beyond the picture, anything): 8-bit
    /// samples coded at 8 bits, or 16-bit ones (the full 16-bit range) coded at `bits`,
    /// 10 or 12 (HEVC Main 10/12; the thumbnail stays 8-bit). A pass asks
    /// for every tile in order, row by row from (0, 0), then `thumbnail()` for a small
    /// picture of what it was given (at most `thumbnailSide` on its longest side; nil for
    /// none); a second pass follows should the first miss the byte budget. Before them,
    /// up to 16 tiles spread over the picture are asked for with `trial` true, whose
    /// encode predicts the bytes. Beyond that trial's mosaic of up to 16 tiles, one tile's
    /// pixels are held at a time.
    public static func encodeGrid<T: PixelComponent>(
        _ still: GridStill, bits: Int = 8, tile: (_ column: Int, _ row: Int, _ trial: Bool) throws -> PixelBuffer<T>,
        thumbnail: () -> PixelBuffer<UInt8>?
    ) throws -> [UInt8] {
        HEIFLibrary.ensureInitialized()
        guard T.self == UInt8.self ? bits == 8 : T.self == UInt16.self && (9...12).contains(bits) else {
            throw HEIFError(code: -1, subcode: 0, message: "a grid codes 8-bit tiles at 8 bits and 16-bit ones at 10 or 12, not \(T.self) at \(bits)", context: "encoding")
        }
        let t = still.tiling
        func pass(_ still: GridStill) throws -> [UInt8] {
            try encodeGridNow(still, bits: bits, tile: { try tile($0, $1, false) }, thumbnail: thumbnail)
        }
        guard let budget = still.settings.maximumCodedBytes, budget > 0 else { return try pass(still) }
        // The trial: a mosaic of up to 16 tiles from all over the grid, at the asked quality.
        let count = t.columns * t.rows
        let picks = Array(Set((0..<min(16, count)).map { $0 * count / min(16, count) })).sorted()
        let side = Int(Double(picks.count).squareRoot().rounded(.up))
        let across = min(side, picks.count), down = (picks.count + across - 1) / across
        var mosaic = PixelBuffer<T>(width: across * t.tileWidth, height: down * t.tileHeight, channels: 3)
        for (i, pick) in picks.enumerated() {
            let pixels = try tile(pick % t.columns, pick / t.columns, true)
            let (mx, my) = (i % across, i / across)
            for y in 0..<t.tileHeight {
                let dst = ((my * t.tileHeight + y) * mosaic.width + mx * t.tileWidth) * 3
                mosaic.components.replaceSubrange(dst..<(dst + t.tileWidth * 3), with: pixels.components[(y * t.tileWidth * 3)..<((y + 1) * t.tileWidth * 3)])
            }
        }
        var trial = still.settings
        (trial.compression, trial.thumbnailSide, trial.maximumCodedBytes) = (.hevc, nil, nil)
        let trialFile: [UInt8]
        if let deep = mosaic as? PixelBuffer<UInt16> {
            trialFile = try encodeRGB(trial, sixteenBit: deep, bits: bits)
        } else {
            trial.pixels = mosaic as! PixelBuffer<UInt8>
            trialFile = try encodeRGB(trial)
        }
        let trialBytes = try codedBytes(of: trialFile)
        let aim = Double(budget) * 0.9
        var fitted = still
        fitted.settings.quality = quality(still.settings.quality, bytes: Double(trialBytes) * Double(count) / Double(picks.count), aim: aim)
        let encoded = try pass(fitted)
        let bytes = try codedBytes(of: encoded)
        guard bytes > budget, fitted.settings.quality > minimumQuality else { return encoded }
        fitted.settings.quality = quality(fitted.settings.quality, bytes: Double(bytes), aim: aim)
        return try pass(fitted)
    }

    private static func encodeGridNow<T: PixelComponent>(
        _ gridStill: GridStill, bits: Int, tile: (Int, Int) throws -> PixelBuffer<T>, thumbnail: () -> PixelBuffer<UInt8>?
    ) throws -> [UInt8] {
        let (t, still) = (gridStill.tiling, gridStill.settings)
        // A 16-bit sample's level at `bits`, looked up (little-endian, as libheif holds them).
        let levels = bits > 8 ? SampleScale.levelsFromSixteen(bits: bits) : []
        // heif_context_alloc → heif_context_free.
        guard let ctx = heif_context_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no context", context: "encoding") }
        defer { heif_context_free(ctx) }
        let encoder = try encoder(ctx, for: .hevc)
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(max(0, min(100, still.quality)))), "setting the quality")
        try setSpeed(of: encoder, preset: still.preset)
        // heif_encoding_options_alloc → heif_encoding_options_free.
        guard let options = heif_encoding_options_alloc() else { throw HEIFError(code: -1, subcode: 0, message: "no options", context: "encoding") }
        defer { heif_encoding_options_free(options) }
        // The grid is made upright (libheif 1.19 mixes up a grid's tile sizes when given an
        // orientation: the file does not decode); its irot/imir are added afterwards.
        options.pointee.image_orientation = heif_orientation_normal
        var grid: OpaquePointer?
        try check(
            heif_context_add_grid_image(ctx, UInt32(t.width), UInt32(t.height), UInt32(t.columns), UInt32(t.rows), options, &grid),
            "adding the grid")
        // heif_context_add_grid_image → heif_image_handle_release.
        guard let grid else { throw HEIFError(code: -1, subcode: 0, message: "no grid handle", context: "encoding") }
        defer { heif_image_handle_release(grid) }
        for row in 0..<t.rows {
            for column in 0..<t.columns {
                let pixels = try tile(column, row)
                guard pixels.width == t.tileWidth, pixels.height == t.tileHeight, pixels.channels == 3 else {
                    throw HEIFError(code: -1, subcode: 0, message: "a tile of \(pixels.width)x\(pixels.height), not \(t.tileWidth)x\(t.tileHeight)", context: "encoding")
                }
                try withRGBImage(pixels, bits: bits, levels: levels, colour: still) { image in
                    try check(heif_context_add_image_tile(ctx, grid, UInt32(column), UInt32(row), image, encoder), "encoding tile \(column),\(row)")
                }
            }
        }
        if still.thumbnailSide != nil, let small = thumbnail() {
            try withRGBImage(small, bits: 8, levels: [], colour: still) { image in
                var thumb: OpaquePointer?
                // A thumbnail coded whole takes its irot/imir from libheif.
                options.pointee.image_orientation = heif_orientation(rawValue: UInt32(still.orientation.rawValue))
                try check(heif_context_encode_image(ctx, image, encoder, options, &thumb), "encoding the thumbnail")
                // heif_context_encode_image → heif_image_handle_release.
                guard let thumb else { return }
                defer { heif_image_handle_release(thumb) }
                // libheif 1.19's C function hands its two handles on the wrong way round
                // (heif_context_assign_thumbnail calls assign_thumbnail(thumbnail, master)),
                // so the thumbnail goes first for the thmb reference to run from it to the
                // grid. A test reads the reference back.
                try check(heif_context_assign_thumbnail(ctx, thumb, grid), "making the thumbnail the grid's")
            }
        }
        // After the thumbnail: encoding an image makes it the primary one.
        try check(heif_context_set_primary_image(ctx, grid), "making the grid the primary image")
        if let exif = still.exifTIFF, !exif.isEmpty {
            try exif.withUnsafeBytes { try check(heif_context_add_exif_metadata(ctx, grid, $0.baseAddress, Int32($0.count)), "adding Exif") }
        }
        if let xmp = still.xmp, !xmp.isEmpty {
            try xmp.withUnsafeBytes { try check(heif_context_add_XMP_metadata(ctx, grid, $0.baseAddress, Int32($0.count)), "adding XMP") }
        }
        return try describingGrid(write(ctx), orientation: still.orientation, iccProfile: still.iccProfile, colour: still.colour)
    }

    /// What libheif 1.19 does not write for a grid: its colour description (none on the
    /// grid or the tiles it adds to one: the grid gets the one its tiles were coded with,
    /// the ICC profile or the nclx `colour`, sRGB's when nil) and its orientation (irot,
    /// then imir, as a reader applies them), all essential, as MIAF asks.
    private static func describingGrid(_ file: [UInt8], orientation: EXIFOrientation, iccProfile: [UInt8]?, colour: HEIFColourDescription?) throws
        -> [UInt8]
    {
        var colr = ISOBoxWriter()
        if let icc = iccProfile, !icc.isEmpty {
            colr.box("colr") { box in
                box.raw(Array("prof".utf8))
                box.raw(icc)
            }
        } else {
            // description(of:) → heif_nclx_color_profile_free.
            let nclx = try description(of: colour)
            defer { heif_nclx_color_profile_free(nclx) }
            let n = nclx.pointee
            colr.box("colr") { box in
                box.raw(Array("nclx".utf8))
                box.u16(UInt16(n.color_primaries.rawValue))
                box.u16(UInt16(n.transfer_characteristics.rawValue))
                box.u16(UInt16(n.matrix_coefficients.rawValue))
                box.u8(n.full_range_flag != 0 ? 0x80 : 0)
            }
        }
        var meta = try HEIFMetaBox(file: file)
        let grid = meta.primaryItemID
        if !meta.properties(of: grid).contains(where: { $0.type == "colr" }) {
            meta.associate(grid, property: meta.addProperty(colr.bytes), essential: true)
        }
        // The quarter turns counter-clockwise and the mirror that show the stored grid as
        // `orientation` does.
        let ways = (0..<4).flatMap { turns in [nil, true, false].map { (turns, $0) } }
        guard let (turns, mirror) = ways.first(where: { turns, mirror in
            let turned = EXIFOrientation.up.then(.heifRotation(degreesCCW: 90 * turns))
            return (mirror.map { turned.then(.heifMirror(horizontal: $0)) } ?? turned) == orientation
        }) else { throw HEIFError(code: -1, subcode: 0, message: "no irot/imir for \(orientation)", context: "encoding") }
        if turns > 0 {
            var irot = ISOBoxWriter()
            irot.box("irot") { $0.u8(UInt8(turns)) }
            meta.associate(grid, property: meta.addProperty(irot.bytes), essential: true)
        }
        if let horizontal = mirror {
            // The axis bit: 1 swaps left and right, 0 top and bottom (libheif's reading).
            var imir = ISOBoxWriter()
            imir.box("imir") { $0.u8(horizontal ? 1 : 0) }
            meta.associate(grid, property: meta.addProperty(imir.bytes), essential: true)
        }
        return try HEIFAuxiliaryWriter.assemble(file, meta: meta, appending: [])
    }

    /// `pixels` (RGB: 8-bit, or 16-bit coded at `bits` through `levels`) as a libheif
    /// image with the still's ICC profile or nclx colour, for `body`; released after.
    private static func withRGBImage<T: PixelComponent>(
        _ pixels: PixelBuffer<T>, bits: Int, levels: [UInt16], colour still: Still, _ body: (OpaquePointer) throws -> Void
    ) throws {
        let chroma = bits > 8 ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
        var image: OpaquePointer?
        try check(heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, chroma, &image), "creating the image")
        // heif_image_create → heif_image_release.
        guard let image else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: "encoding") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), Int32(bits)), "adding the plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "no plane", context: "encoding")
        }
        if let deep = pixels as? PixelBuffer<UInt16> {
            fill(plane, stride: Int(stride), with: deep, levels: levels)
        } else {
            (pixels as! PixelBuffer<UInt8>).components.withUnsafeBufferPointer { src in
                for y in 0..<pixels.height { (plane + y * Int(stride)).update(from: src.baseAddress! + y * pixels.width * 3, count: pixels.width * 3) }
            }
        }
        if let icc = still.iccProfile, !icc.isEmpty {
            try icc.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count), "setting the colour profile") }
        } else {
            // The source's description, or sRGB's (its primaries and transfer, libheif's
            // RGB-to-YCbCr matrix, full range), said out loud: a tile is written with only
            // the description it is given. description(of:) → heif_nclx_color_profile_free.
            let nclx = try description(of: still.colour)
            defer { heif_nclx_color_profile_free(nclx) }
            try check(heif_image_set_nclx_color_profile(image, nclx), "setting the colour description")
        }
        try body(image)
    }
}
