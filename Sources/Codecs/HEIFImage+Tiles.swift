internal import CHeif
import Imaging

extension HEIFImage {
    /// How a grid image is stored: its tiles, in the stored (untransformed) picture.
    public struct Tiling: Sendable, Equatable {
        public let columns: Int, rows: Int
        public let tileWidth: Int, tileHeight: Int
        /// The stored picture's size (before irot/imir/clap); the right and bottom tiles
        /// may reach beyond it.
        public let width: Int, height: Int

        public init(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int, width: Int, height: Int) {
            (self.columns, self.rows, self.tileWidth, self.tileHeight, self.width, self.height) = (columns, rows, tileWidth, tileHeight, width, height)
        }
    }

    /// The grid of a grid image (`grid` item: iPhone HEICs are 512x512 tiles, a
    /// panorama hundreds of them); nil for an image coded whole.
    public var storedTiling: Tiling? {
        var tiling = heif_image_tiling()
        guard heif_image_handle_get_image_tiling(handle, 0, &tiling).code == heif_error_Ok,
            tiling.num_columns * tiling.num_rows > 1, tiling.tile_width > 0, tiling.tile_height > 0
        else { return nil }
        return Tiling(
            columns: Int(tiling.num_columns), rows: Int(tiling.num_rows), tileWidth: Int(tiling.tile_width),
            tileHeight: Int(tiling.tile_height), width: Int(tiling.image_width), height: Int(tiling.image_height))
    }

    /// The stored picture's size (its `ispe`), before irot/imir/clap.
    public var storedSize: (width: Int, height: Int) {
        (Int(heif_image_handle_get_ispe_width(handle)), Int(heif_image_handle_get_ispe_height(handle)))
    }

    /// Whether the item is shown cropped (`clap`): its displayed size is not its stored
    /// one, turned or not.
    public var isCropped: Bool {
        let stored = storedSize
        let turned = orientation.quarterTurnsCW % 2 == 1
        return (turned ? (height, width) : (width, height)) != (stored.width, stored.height)
    }

    /// Decodes the whole picture as stored (no irot/imir/clap) to 8-bit RGB.
    public func decodeStoredRGB() throws -> PixelBuffer<UInt8> {
        let image = try decode(colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB, asStored: true)
        defer { heif_image_release(image) }
        return try Self.rgbPixels(image, context: "decoding image item \(itemID)")
    }

    /// Decodes one tile of a grid image, as stored (no irot/imir/clap), to 8-bit RGB: the
    /// tile's whole size, even where it reaches beyond the picture. A 200-megapixel grid
    /// is read this way a tile at a time, rather than whole (600 MB).
    public func decodeStoredTileRGB(column: Int, row: Int) throws -> PixelBuffer<UInt8> {
        try decodeStoredTile(column: column, row: row, sixteenBit: false, Self.rgbPixels)
    }

    /// ``decodeStoredTileRGB(column:row:)`` to 16-bit RGB, each coded sample at the full
    /// 16-bit range (as ``decodeRGB16(asStored:)``), for a 10- or 12-bit grid.
    public func decodeStoredTileRGB16(column: Int, row: Int) throws -> PixelBuffer<UInt16> {
        try decodeStoredTile(column: column, row: row, sixteenBit: true, Self.rgb16Pixels)
    }

    /// Tile (column, row) decoded as stored to interleaved RGB, 8-bit or (`sixteenBit`)
    /// RRGGBB at the coded depth, and read by `pixels`.
    private func decodeStoredTile<T>(
        column: Int, row: Int, sixteenBit: Bool, _ pixels: (OpaquePointer, String) throws -> PixelBuffer<T>
    ) throws -> PixelBuffer<T> {
        if let t = storedTiling, let refusal = DecodeLimits.refusal(width: t.tileWidth, height: t.tileHeight) {
            throw HEIFError(code: -1, subcode: 0, message: "a tile: " + refusal, context: "decoding tile \(column),\(row) of image item \(itemID)")
        }
        // heif_decoding_options_alloc → heif_decoding_options_free.
        guard let options = heif_decoding_options_alloc() else {
            throw HEIFError(code: -1, subcode: 0, message: "could not allocate decoding options", context: "decoding")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = sixteenBit ? 0 : 1
        options.pointee.ignore_transformations = 1
        let decoder = file.isHEVC ? HEIFLibrary.preferredHEVCDecoder : ""
        let chroma = sixteenBit ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
        var image: OpaquePointer?
        let error = decoder.withCString { id in
            options.pointee.decoder_id = decoder.isEmpty ? nil : id  // read only during the call
            return heif_image_handle_decode_image_tile(handle, &image, heif_colorspace_RGB, chroma, options, UInt32(column), UInt32(row))
        }
        let context = "decoding tile \(column),\(row) of image item \(itemID)"
        try file.check(error, context)
        // heif_image_handle_decode_image_tile → heif_image_release.
        guard let image else { throw HEIFError(code: -1, subcode: 0, message: "no image", context: context) }
        defer { heif_image_release(image) }
        let out = try pixels(image, context)
        // A tile must be the size its grid declares (every tile is placed by it): a file
        // whose tiles say one size and are coded at another is refused here.
        if let t = storedTiling, out.width != t.tileWidth || out.height != t.tileHeight {
            throw HEIFError(
                code: -1, subcode: 0,
                message: "the tile is coded at \(out.width)x\(out.height), but the grid declares tiles of \(t.tileWidth)x\(t.tileHeight)",
                context: context)
        }
        return out
    }

    /// An interleaved RGB heif_image's pixels (the caller keeps and releases the image).
    static func rgbPixels(_ image: OpaquePointer, context: String) throws -> PixelBuffer<UInt8> {
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw HEIFError(code: -1, subcode: 0, message: "decoded image has no RGB plane", context: context)
        }
        var out = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        out.components.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h { (dst.baseAddress! + y * w * 3).update(from: plane + y * Int(stride), count: w * 3) }
        }
        return out
    }
}
