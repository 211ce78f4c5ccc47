import Codecs
import Containers
import Filters
import Foundation
import Imaging

/// Renders a filter recipe over a full-size still, in the original's format: filters see
/// the photo as displayed; the result is stored in the original's orientation with the
/// original's orientation tag or irot/imir, its metadata, colour profile and auxiliary
/// images, so it displays and behaves like the original with the edit applied.
public enum StillRenderer {
    public struct Render: Sendable {
        public var bytes: [UInt8]
        public var format: MediaFormat
        /// What could not be carried over, in words.
        public var warnings: [String]
    }

    /// `auxiliarySource`: the HEIC whose auxiliary images the render carries (a version
    /// `camlib aux attach` made from the original); the original itself when nil.
    /// `embeddedMovie`: a Motion Photo's (rendered) movie to put inside the still, its
    /// XMP lengths rewritten to declare it (appended to a JPEG; an `mpvd` box in a HEIC).
    /// The largest still camlib renders, in pixels: it is held whole (a JPEG's edit peaks
    /// at about 3 bytes a pixel, 640 MB here; a HEIC's more, libheif's decoder and encoder
    /// holding their own copies). A file declaring more is refused before anything is
    /// decoded.
    public static let maximumPixels = DecodeLimits.maximumPixels

    static func checkSize(width: Int, height: Int) throws {
        guard width > 0, height > 0 else { throw MediaAnalyzer.Failure(reason: "the photo declares an empty size (\(width)x\(height))") }
        let pixels = width * height
        guard pixels <= maximumPixels else {
            throw MediaAnalyzer.Failure(
                reason: "the photo is \(width)x\(height) (\(pixels / 1_000_000) megapixels); camlib renders stills of up to \(maximumPixels / 1_000_000) megapixels")
        }
    }

    /// `identifier`: a Live Photo's content identifier and the render pair's new one, put
    /// in its place in the Exif (Apple's MakerNote) and XMP.
    public static func render(
        path: String, recipe: FilterRecipe, auxiliarySource: String? = nil, embeddedMovie: [UInt8]? = nil,
        identifier: (old: String, new: String)? = nil
    ) throws -> Render {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let format = MediaFormat.sniff(Array(bytes.prefix(64)))
        // A HEIF render carries the auxiliary images of the version that attached some; the
        // depth step reads its depth from there too (a JPEG's are attached after the render).
        let readsAuxiliarySource = format == .heif || format == .avif || recipe.needsDepth
        let auxBytes = try auxiliarySource.map { readsAuxiliarySource ? try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) : bytes } ?? bytes
        var depth: DepthField?
        if recipe.needsDepth, format?.isStill == true {
            depth = try DepthField.required(by: auxBytes)
        }
        switch format {
        case let format? where format == .heif || format == .avif:
            var render = try renderHEIF(
                path: path, bytes: bytes, auxiliaryBytes: auxBytes, recipe: recipe, embeddedMovie: embeddedMovie,
                compression: format == .avif ? .av1 : .hevc, identifier: identifier, depth: depth)
            if let movie = embeddedMovie {
                var box = ISOBoxWriter()
                box.box("mpvd") { $0.raw(movie) }
                render.bytes += box.bytes
            }
            return render
        case .jpeg?:
            var render = try renderJPEG(bytes: bytes, recipe: recipe, embeddedMovie: embeddedMovie, identifier: identifier, depth: depth)
            if let movie = embeddedMovie { render.bytes += movie }
            return render
        case .png?:
            guard embeddedMovie == nil else { throw MediaAnalyzer.Failure(reason: "a PNG cannot carry a Motion Photo movie") }
            return try renderPNG(bytes: bytes, recipe: recipe)
        case let other?: throw MediaAnalyzer.Failure(reason: "\(other.displayName) stills cannot be rendered yet (HEIC, AVIF, JPEG and PNG can)")
        case nil: throw MediaAnalyzer.Failure(reason: "\(path) is not a photo camlib reads")
        }
    }

    /// HEIC grids above this many pixels render tile by tile (`RegionRendering`: a pass
    /// over the tiles for each step that decides by the whole picture, and one to draw),
    /// in bounded memory: held whole, a 200-megapixel picture is 600 MB a copy, and
    /// libheif refuses to decode it (its limit on one allocation is 512 MB).
    /// (A 64-megapixel grid rendered whole peaked at 1.2 GB.) The size above which
    /// thumbnails are scaled by bands too.
    public static let tiledAbovePixels = PixelScaler.bandedAbovePixels

    /// A HEIC stays a HEIC (x265), an AVIF an AVIF (SVT-AV1). `tiledAbove`: see
    /// ``tiledAbovePixels``.
    static func renderHEIF(
        path: String, bytes: [UInt8], auxiliaryBytes: [UInt8], recipe: FilterRecipe, embeddedMovie: [UInt8]?,
        compression: HEIFEncoder.Compression = .hevc, identifier: (old: String, new: String)? = nil, tiledAbove: Int = tiledAbovePixels,
        depth: DepthField? = nil
    ) throws -> Render {
        let primary = try HEIFFile(path: path).primaryImage()
        try checkSize(width: primary.width, height: primary.height)
        // How the render is coded and what it carries; its pixels come below.
        var still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        still.compression = compression
        still.orientation = primary.orientation
        // libheif 1.19 gives no profile for some grids with a gain map (IMG_8606): then
        // the primary item's colr box is read directly.
        still.iccProfile = primary.iccProfile ?? (try? HEIFMetaBox(file: bytes)).flatMap { $0.iccProfile(of: $0.primaryItemID) }
        // Without a profile, the nclx description it has (an HDR photo's BT.2020 and PQ or HLG).
        if still.iccProfile == nil { still.colour = primary.colourDescription }
        still.exifTIFF = primary.exifTIFF().map(Array.init)
        still.xmp = primary.metadataBlocks(type: "mime").first { String(decoding: $0.prefix(512), as: UTF8.self).contains("xmpmeta") }
        if let (old, new) = identifier {
            if still.exifTIFF != nil { RenderIdentifier.replace(old, with: new, in: &still.exifTIFF!) }
            if still.xmp != nil { RenderIdentifier.replace(old, with: new, in: &still.xmp!) }
        }
        if let movie = embeddedMovie, let xmp = still.xmp {
            // The mpvd box's payload, after its 8-byte header.
            still.xmp = Array(MotionPhotoXMP.declaring(movieLength: movie.count, in: String(decoding: xmp, as: UTF8.self)).utf8)
        }
        // libheif maps quality q to x265's CRF (100 - q) / 2. 60 (CRF 20) keeps a comic
        // render of IMG_3582 at 43 dB PSNR in half the bytes of 85 and a little less time;
        // 90 made 24-megapixel renders seven times the original's size. A render may not
        // take more bytes than the original's picture: the quality goes down as needed.
        still.quality = 60
        still.maximumCodedBytes = try? HEIFEncoder.codedBytes(of: bytes)
        // A thumbnail as the original has one, at its size; none where it has none (the
        // render would weigh more than its original for a preview nobody asked for).
        still.thumbnailSide = primary.thumbnail().map { max($0.width, $0.height) }
        // A 10- or 12-bit picture is filtered and coded at its depth: whole up to the size
        // held whole (16 bits a sample, 6 bytes a pixel), tile by tile beyond it; at 8 bits
        // when it is too large to hold whole and cannot be drawn by tiles.
        let bits = primary.lumaBitDepth
        var warnings: [String] = []
        var keptBits = bits <= 8
        let encoded: [UInt8]
        if bits > 8, primary.width * primary.height <= tiledAbove {
            keptBits = true
            let pixels = try filteredAsStored(sixteenBit: primary, recipe: recipe, depth: depth)
            if recipe.changesGeometry, still.exifTIFF != nil {
                ExifDimensions.replacing(in: &still.exifTIFF!, width: pixels.width, height: pixels.height)
            }
            encoded = try HEIFEncoder.encodeRGB(still, sixteenBit: pixels, bits: min(12, bits))
        } else if compression == .hevc, primary.width * primary.height > tiledAbove, let source = primary.storedTiling, !primary.isCropped,
            let cut = tiledCut(recipe, width: source.width, height: source.height, shownIn: primary.orientation),
            let rendering = RegionRendering(recipe: cut.rest, width: cut.width, height: cut.height, sixteenBit: bits > 8)
        {
            // A turn or flip is a new way of showing the stored samples.
            if recipe.changesGeometry, still.exifTIFF != nil {
                ExifDimensions.replacing(
                    in: &still.exifTIFF!, width: cut.width, height: cut.height, orientation: cut.orientation == still.orientation ? nil : cut.orientation.rawValue)
            }
            still.orientation = cut.orientation
            // The cut in tiles of the original's size.
            func encode<T: RegionSample>(bits: Int, _ decode: @escaping (Int, Int) throws -> PixelBuffer<T>) throws -> [UInt8] {
                let reader = HEIFTileReader(tiling: source, decode: decode)
                return try encodeCut(
                    cut, rendering: rendering, sourceWidth: source.width, sourceHeight: source.height, tileWidth: source.tileWidth,
                    tileHeight: source.tileHeight, like: still, bits: bits
                ) { try reader.region(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
            }
            if bits > 8 {
                encoded = try encode(bits: min(12, bits)) { try primary.decodeStoredTileRGB16(column: $0, row: $1) }
                keptBits = true
            } else {
                encoded = try encode(bits: 8) { try primary.decodeStoredTileRGB(column: $0, row: $1) }
            }
        } else if compression == .hevc, primary.width * primary.height > tiledAbove, let source = primary.storedTiling, !primary.isCropped {
            // The recipe sees the picture whole (geometry after a comic, say, or the depth
            // step): held once, put together from its tiles as stored, filtered in its own
            // storage, and coded as a grid of the original's tile size (x265 holds gigabytes
            // coding 200 megapixels as one picture).
            let reader = HEIFTileReader(tiling: source) { try primary.decodeStoredTileRGB(column: $0, row: $1) }
            let filtered = recipe.apply(
                toStored: try reader.region(x: 0, y: 0, width: source.width, height: source.height), shownIn: primary.orientation, depth: depth)
            if recipe.changesGeometry, still.exifTIFF != nil {
                ExifDimensions.replacing(in: &still.exifTIFF!, width: filtered.width, height: filtered.height)
            }
            encoded = try encodeAsGrid(filtered, tileWidth: source.tileWidth, tileHeight: source.tileHeight, like: still)
        } else if compression == .hevc, primary.width * primary.height > tiledAbove, primary.storedTiling == nil, !primary.isCropped,
            let coded = try renderedFromPlanes(primary, recipe: recipe, depth: depth, still: &still)
        {
            encoded = coded
        } else if compression == .hevc, primary.width * primary.height > tiledAbove {
            // A grid shown cropped, or a picture coded whole whose planes camlib cannot
            // convert: decoded whole by libheif, but coded as a grid of 512-pixel tiles, as an
            // iPhone's are (x265 coding a 64-megapixel picture as one took the edit over 1 GB).
            let filtered = try filteredAsStored(primary, recipe: recipe, depth: depth)
            if recipe.changesGeometry, still.exifTIFF != nil {
                ExifDimensions.replacing(in: &still.exifTIFF!, width: filtered.width, height: filtered.height)
            }
            encoded = try encodeAsGrid(filtered, tileWidth: 512, tileHeight: 512, like: still)
        } else if compression == .hevc, let rendering = try? summarizedFromYCbCr(primary, recipe: recipe) {
            // (A picture libheif cannot give as 4:2:0 is decoded as RGB below, which says
            // what is wrong with it if anything is.)
            encoded = try HEIFEncoder.encodeYCbCr420(still, width: rendering.width, height: rendering.height) { rendering.draw(into: $0) }
        } else {
            still.pixels = try filteredAsStored(primary, recipe: recipe, depth: depth)
            if recipe.changesGeometry, still.exifTIFF != nil {
                ExifDimensions.replacing(in: &still.exifTIFF!, width: still.pixels.width, height: still.pixels.height)
            }
            encoded = try HEIFEncoder.encodeRGB(still)
        }
        if !keptBits {
            warnings.append(
                "the \(bits)-bit photo was rendered with 8 bits per sample (above \(Double(tiledAbove) / 1e6) megapixels, camlib keeps 10 and 12 bits "
                    + "only for a HEIC grid edited without depth, its geometry before all but colour steps)")
        }
        if recipe.changesGeometry {
            let (withAux, reshapeWarnings) = try reshapedAuxiliaryImages(from: auxiliaryBytes, into: encoded, recipe: recipe)
            return Render(bytes: withAux, format: compression == .av1 ? .avif : .heif, warnings: warnings + reshapeWarnings)
        }
        let (withAux, _, left) = try HEIFAuxiliaryWriter.carryOverAuxiliaryImages(from: auxiliaryBytes, into: encoded)
        return Render(
            bytes: withAux, format: compression == .av1 ? .avif : .heif,
            warnings: warnings + left.map { "auxiliary image \($0) could not be carried over (stored by reference)" })
    }

    /// A picture coded whole (as heif-enc, GIMP and ImageMagick write them, whatever their
    /// size), above the tiled size, rendered from its decoded 8-bit 4:2:0 planes, which
    /// take half the bytes of RGB: converted a tile at a time where the recipe can be drawn
    /// by tiles, else converted whole once and the planes let go before the recipe runs;
    /// coded as a grid of 512-pixel tiles, as an iPhone's are (x265 coding a 64-megapixel
    /// picture as one took the edit over 1 GB). nil, with `still` as it was, when libheif
    /// cannot give such planes (odd sides, a matrix camlib does not know).
    static func renderedFromPlanes(_ primary: HEIFImage, recipe: FilterRecipe, depth: DepthField?, still: inout HEIFEncoder.Still) throws -> [UInt8]? {
        let stored = primary.storedSize
        let tile = 512
        if let cut = tiledCut(recipe, width: stored.width, height: stored.height, shownIn: primary.orientation),
            let rendering = RegionRendering(recipe: cut.rest, width: cut.width, height: cut.height)
        {
            var cutStill = still
            if recipe.changesGeometry, cutStill.exifTIFF != nil {
                ExifDimensions.replacing(
                    in: &cutStill.exifTIFF!, width: cut.width, height: cut.height,
                    orientation: cut.orientation == still.orientation ? nil : cut.orientation.rawValue)
            }
            cutStill.orientation = cut.orientation
            let like = cutStill
            guard
                let coded = try primary.withStoredYCbCr420({ planes in
                    try encodeCut(
                        cut, rendering: rendering, sourceWidth: stored.width, sourceHeight: stored.height, tileWidth: tile, tileHeight: tile,
                        like: like, bits: 8
                    ) { PixelBuffer<UInt8>.rgb(planes, x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
                })
            else { return nil }
            still = cutStill
            return coded
        }
        guard let whole = try primary.withStoredYCbCr420({ PixelBuffer<UInt8>.rgb($0, x: 0, y: 0, width: $0.width, height: $0.height) }) else {
            return nil
        }
        // The depth step reads its field upright.
        let filtered =
            depth != nil && recipe.needsDepth
            ? recipe.apply(to: whole.reoriented(primary.orientation), depth: depth).reoriented(primary.orientation.inverse)
            : recipe.apply(toStored: whole, shownIn: primary.orientation)
        if recipe.changesGeometry, still.exifTIFF != nil {
            ExifDimensions.replacing(in: &still.exifTIFF!, width: filtered.width, height: filtered.height)
        }
        return try encodeAsGrid(filtered, tileWidth: tile, tileHeight: tile, like: still)
    }

    /// A tiled cut of a `sourceWidth`×`sourceHeight` stored picture, whose rectangles
    /// `read` gives, through `rendering` and coded as a grid of `tileWidth`×`tileHeight`
    /// tiles (``encodeByTiles(tiling:rendering:like:bits:visible:)``).
    static func encodeCut<T: RegionSample>(
        _ cut: TiledCut, rendering: RegionRendering, sourceWidth: Int, sourceHeight: Int, tileWidth tw: Int, tileHeight th: Int,
        like still: HEIFEncoder.Still, bits: Int, read: (PixelRegion) throws -> PixelBuffer<T>
    ) throws -> [UInt8] {
        let tiling = HEIFImage.Tiling(
            columns: (cut.width + tw - 1) / tw, rows: (cut.height + th - 1) / th, tileWidth: tw, tileHeight: th, width: cut.width, height: cut.height)
        return try encodeByTiles(tiling: tiling, rendering: rendering, like: still, bits: bits) { column, row in
            let (x, y) = (column * tw, row * th)
            return try cut.region(
                x: x, y: y, width: min(tw, cut.width - x), height: min(th, cut.height - y), sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                read: read)
        }
    }

    /// A filtered picture, held whole, coded as a grid of `tileWidth`×`tileHeight` tiles
    /// at 8 bits (its thumbnail made from the tiles as they go by).
    static func encodeAsGrid(_ filtered: PixelBuffer<UInt8>, tileWidth tw: Int, tileHeight th: Int, like still: HEIFEncoder.Still) throws -> [UInt8] {
        let tiling = HEIFImage.Tiling(
            columns: (filtered.width + tw - 1) / tw, rows: (filtered.height + th - 1) / th, tileWidth: tw, tileHeight: th,
            width: filtered.width, height: filtered.height)
        guard let drawn = RegionRendering(recipe: FilterRecipe(steps: []), width: filtered.width, height: filtered.height) else {
            throw MediaAnalyzer.Failure(reason: "internal error: no rendering of the filtered picture's tiles")
        }
        return try encodeByTiles(tiling: tiling, rendering: drawn, like: still, bits: 8) { column, row in
            let (x, y) = (column * tw, row * th)
            return filtered.rectangle(x: x, y: y, width: min(tw, filtered.width - x), height: min(th, filtered.height - y))
        }
    }

    /// What a render by tiles or bands draws of a `width`×`height` stored picture: the
    /// whole stored picture through a recipe that treats every direction alike; the
    /// rectangle its leading crops, turns and flips cut out of the stored picture, shown
    /// the way that keeps its samples where they are, through the other steps
    /// (``FilterRecipe/storedCrop(width:height:shownIn:)``); or, when its leading geometry
    /// straightens, the stored picture resampled as the whole render resamples it
    /// (``FilterRecipe/storedResampling(width:height:shownIn:)``). nil when the recipe
    /// must see the picture whole or upright (depth, geometry between other steps).
    static func tiledCut(_ recipe: FilterRecipe, width: Int, height: Int, shownIn orientation: EXIFOrientation) -> TiledCut? {
        if recipe.treatsEveryDirectionAlike {
            return TiledCut(width: width, height: height, orientation: orientation, rest: recipe, source: .rectangle(x: 0, y: 0))
        }
        if let cut = recipe.storedCrop(width: width, height: height, shownIn: orientation) {
            return TiledCut(width: cut.width, height: cut.height, orientation: cut.orientation, rest: cut.rest, source: .rectangle(x: cut.x, y: cut.y))
        }
        guard let (placement, rest) = recipe.storedResampling(width: width, height: height, shownIn: orientation) else { return nil }
        return TiledCut(width: placement.width, height: placement.height, orientation: orientation, rest: rest, source: .resampled(placement))
    }

    /// The auxiliary images of `source`'s primary image (depth, disparity, mattes, Apple's
    /// gain map) reshaped by the recipe's geometry, each at its own resolution, and
    /// attached to `rendered`: cropped, turned and mirrored with the photo, they still line
    /// up with it. Each is decoded as displayed and attached as displayed (the writer gives
    /// it the render's irot/imir), at the quality a render starts at (60). What cannot be reshaped is named.
    static func reshapedAuxiliaryImages(from source: [UInt8], into rendered: [UInt8], recipe: FilterRecipe) throws -> ([UInt8], [String]) {
        let file = try HEIFFile(bytes: source)
        let primary = try file.primaryImage()
        let (images, problems) = primary.auxiliaryImages()
        var out = rendered
        var warnings = problems.map { "auxiliary image \($0) could not be read, so the render does not carry it" }
        for aux in images {
            do {
                let reshaped: ImageSamples
                switch try aux.decodeSamples() {
                case .eight(let p): reshaped = .eight(recipe.geometry(width: p.width, height: p.height).apply(to: p))
                case .sixteen(let p, let bits): reshaped = .sixteen(recipe.geometry(width: p.width, height: p.height).apply(to: p), significantBits: bits)
                }
                // Lossy, as the camera coded them, at the primary's starting quality:
                // losslessly, or at 90, they made a crop of pug.heic heavier than its original.
                // At the primary's speed too: libheif's default preset (rate-distortion
                // optimised quantisation) took 3 of a crop's 5.7 s on IMG_3582.
                var options = HEIFAuxiliaryWriter.Options()
                (options.lossless, options.quality, options.preset) = (false, 60, "ultrafast")
                out = try HEIFAuxiliaryWriter.attach(
                    to: out, samples: reshaped, urn: aux.urn, auxSubtype: aux.depthRepresentation?.auxSubtype ?? [], xmp: aux.xmp, options: options)
            } catch {
                warnings.append("auxiliary image \(aux.urn) could not be reshaped with the photo, so the render does not carry it: \(error)")
            }
        }
        do {
            out = try HEIFAuxiliaryWriter.carryOverToneMap(from: source, into: out)
        } catch {
            warnings.append("the ISO 21496-1 gain map could not follow the crop or turn, so the render is shown in standard range only: \(error)")
        }
        return (out, warnings)
    }

    /// A recipe that needs nothing of the picture but its average and draws Y'CbCr itself
    /// (comic), summarised from the picture decoded as stored to its coded Y'CbCr 4:2:0 and
    /// halved there, to be drawn straight into the encoder's planes: no full-size RGB
    /// picture is decoded, converted or copied, on either side (for a 24-megapixel still,
    /// two 72 MB pictures and libheif's conversion each way). nil when the recipe or the
    /// picture does not allow it (odd sides, a crop, a matrix camlib does not know).
    static func summarizedFromYCbCr(_ primary: HEIFImage, recipe: FilterRecipe) throws -> RegionRendering? {
        guard recipe.treatsEveryDirectionAlike, !primary.isCropped else { return nil }
        let stored = primary.storedSize
        guard let rendering = RegionRendering(recipe: recipe, width: stored.width, height: stored.height), rendering.drawsYCbCr,
            let size = rendering.summaryAloneSize, size.width * 2 <= stored.width, size.height * 2 <= stored.height
        else { return nil }
        let summarized = try primary.withStoredYCbCr420 { planes -> Bool in
            guard let halved = PixelBuffer.halvedRGB(planes) else { return false }
            rendering.summarize(reduced: halved)
            return true
        }
        return summarized == true ? rendering : nil
    }

    /// The recipe over a HEIF picture, as stored: decoded as stored and filtered so when
    /// nothing crops the picture and no step reads depth (as the tiled render, movie frames
    /// and JPEGs are), else decoded as displayed (libheif applies irot/imir/clap), filtered
    /// and turned back. The decoded picture is handed over, so the filter works in its
    /// storage. `depth`: the photo's, as displayed.
    static func filteredAsStored(_ primary: HEIFImage, recipe: FilterRecipe, depth: DepthField? = nil) throws -> PixelBuffer<UInt8> {
        // Geometry is folded into the orientation (`apply(toStored:shownIn:)`); the depth
        // step reads its field upright.
        if !primary.isCropped, depth == nil || !recipe.needsDepth {
            return recipe.apply(toStored: try primary.decodeStoredRGB(), shownIn: primary.orientation)
        }
        let displayed = try primary.decodeRGB()
        return recipe.apply(to: consume displayed, depth: depth).reoriented(primary.orientation.inverse)
    }

    /// ``filteredAsStored(_:recipe:depth:)`` at 16 bits a sample, for a 10- or 12-bit picture.
    static func filteredAsStored(sixteenBit primary: HEIFImage, recipe: FilterRecipe, depth: DepthField? = nil) throws -> PixelBuffer<UInt16> {
        if !primary.isCropped, depth == nil || !recipe.needsDepth {
            return recipe.apply(toStored: try primary.decodeRGB16(asStored: true), shownIn: primary.orientation)
        }
        let displayed = try primary.decodeRGB16()
        return recipe.apply(to: consume displayed, depth: depth).reoriented(primary.orientation.inverse)
    }

    /// A JPEG's picture through the recipe, as stored, and the Exif orientation it is
    /// shown in. The decoded picture is handed over, so the filter works in its storage
    /// (a 200-megapixel still is 600 MB a copy).
    static func filteredJPEG(_ bytes: [UInt8], segments: JPEGSegments, recipe: FilterRecipe, depth: DepthField? = nil) throws
        -> (pixels: PixelBuffer<UInt8>, orientation: EXIFOrientation)
    {
        let orientation = EXIFOrientation(exifValue: segments.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }?.orientation ?? 1)
        let size = try JPEGCodec.dimensions(bytes)
        try checkSize(width: size.width, height: size.height)
        let decoded = try JPEGCodec.decode(bytes)
        return (recipe.apply(toStored: (consume decoded).pixels, shownIn: orientation, depth: depth), orientation)
    }

    /// A PNG's picture through the recipe, as stored (8-bit RGB), its alpha samples if
    /// any, and the Exif orientation it is shown in.
    static func filteredPNG(_ bytes: [UInt8], chunks: PNGChunks, recipe: FilterRecipe) throws
        -> (pixels: PixelBuffer<UInt8>, alpha: [UInt8]?, orientation: EXIFOrientation)
    {
        let orientation = EXIFOrientation(exifValue: chunks.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }?.orientation ?? 1)
        try checkSize(width: chunks.width, height: chunks.height)
        let (rgb, alpha) = try PNGCodec.decodeRGBKeepingAlpha(bytes)
        let filtered = recipe.apply(toStored: rgb, shownIn: orientation)
        guard recipe.changesGeometry, let alpha else { return (filtered, alpha, orientation) }
        // The transparency cropped and turned with the picture.
        let plane = PixelBuffer(width: chunks.width, height: chunks.height, channels: 1, components: alpha).applying(orientation)
        let reshaped = recipe.geometry(width: plane.width, height: plane.height).apply(to: plane).applying(orientation.inverse)
        return (filtered, reshaped.components, orientation)
    }

    /// A 16-bit PNG's picture through the recipe at 16 bits, as stored: its samples to
    /// write (at the original's significant bits; gray when the original was gray and
    /// stayed so; its alpha, reshaped with the picture) and the render at 8 bits.
    static func filteredSixteenBitPNG(_ bytes: [UInt8], chunks: PNGChunks, recipe: FilterRecipe) throws
        -> (samples: ImageSamples, eightBit: PixelBuffer<UInt8>)
    {
        let orientation = EXIFOrientation(exifValue: chunks.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }?.orientation ?? 1)
        try checkSize(width: chunks.width, height: chunks.height)
        guard case .sixteen(let decoded, let bits) = try PNGCodec.decodeSamples(bytes, keepingAlpha: true).samples else {
            throw MediaAnalyzer.Failure(reason: "the PNG declares 16 bits per sample but did not decode as 16-bit")
        }
        let (w, h, ch) = (decoded.width, decoded.height, decoded.channels)
        let hasAlpha = ch == 2 || ch == 4, gray = ch <= 2
        // The colour as RGB and the alpha apart, at the full 16-bit range.
        var rgb = PixelBuffer<UInt16>(width: w, height: h, channels: 3)
        var alpha = hasAlpha ? PixelBuffer<UInt16>(width: w, height: h, channels: 1) : nil
        for i in 0..<(w * h) {
            for c in 0..<3 { rgb.components[i * 3 + c] = SampleScale.toSixteen(decoded.components[i * ch + (gray ? 0 : c)], bits: bits) }
            if hasAlpha { alpha!.components[i] = SampleScale.toSixteen(decoded.components[i * ch + ch - 1], bits: bits) }
        }
        let filtered = recipe.apply(toStored: rgb, shownIn: orientation)
        if recipe.changesGeometry, let plane = alpha?.applying(orientation) {
            // The transparency cropped and turned with the picture.
            alpha = recipe.geometry(width: plane.width, height: plane.height).apply(to: plane).applying(orientation.inverse)
        }
        let pixels = filtered.width * filtered.height
        let staysGray = gray && filtered.isNeutral
        let colours = staysGray ? 1 : 3, outChannels = colours + (hasAlpha ? 1 : 0)
        var out = PixelBuffer<UInt16>(width: filtered.width, height: filtered.height, channels: outChannels)
        for i in 0..<pixels {
            for c in 0..<colours { out.components[i * outChannels + c] = SampleScale.fromSixteen(filtered.components[i * 3 + c], bits: bits) }
            if let alpha { out.components[i * outChannels + colours] = SampleScale.fromSixteen(alpha.components[i], bits: bits) }
        }
        return (.sixteen(out, significantBits: bits), filtered.eightBit())
    }

    /// A HEIC grid rendered a tile at a time, as stored, into a grid of tiles `t` (the
    /// original's, or a crop's cut into tiles of the same size): a pass reads every tile
    /// (`visible`: the part of output tile (column, row) inside the picture, before the
    /// recipe) for each summary of the picture the recipe needs, a last draws each
    /// (reading it again only if the drawing needs it) and hands it to the encoder. A few
    /// tiles, the summary and a thumbnail are all that is held. Tiles are 8-bit (coded at
    /// 8) or 16-bit (`rendering` is `sixteenBit`, coded at `bits`, 10 or 12).
    static func encodeByTiles<T: RegionSample>(
        tiling t: HEIFImage.Tiling, rendering: RegionRendering, like still: HEIFEncoder.Still, bits: Int,
        visible: (_ column: Int, _ row: Int) throws -> PixelBuffer<T>
    ) throws -> [UInt8] {
        // A pass over the tiles for each step that decides by the whole picture.
        while rendering.needsSummary {
            for row in 0..<t.rows {
                for column in 0..<t.columns { T.summarize(try visible(column, row), in: rendering, x: column * t.tileWidth, y: row * t.tileHeight) }
            }
            rendering.finishSummary()
        }
        let readsPixels = rendering.drawReadsPixels
        // The thumbnail: the drawn tiles of a pass averaged down as they go by.
        let side = still.thumbnailSide ?? 320
        let thumbnailShortSide = max(1, side * min(t.width, t.height) / max(t.width, t.height))
        var thumbnail: AreaAccumulator?
        return try HEIFEncoder.encodeGrid(
            HEIFEncoder.GridStill(tiling: t, settings: still), bits: bits,
            tile: { column, row, trial in
                let (x, y) = (column * t.tileWidth, row * t.tileHeight)
                var region = try readsPixels
                    ? visible(column, row)
                    : PixelBuffer<T>(width: min(t.tileWidth, t.width - x), height: min(t.tileHeight, t.height - y), channels: 3)
                T.draw(&region, in: rendering, x: x, y: y)
                if !trial {
                    if column == 0 && row == 0 { thumbnail = AreaAccumulator(width: t.width, height: t.height, shortSide: thumbnailShortSide) }
                    thumbnail?.add(T.eightBit(region), x: x, y: y)
                }
                return region.padded(toWidth: t.tileWidth, height: t.tileHeight)
            },
            thumbnail: { thumbnail?.averagedPicture() })
    }

    /// A JPEG stored as the photo is (shown in `orientation`), through the recipe's
    /// geometry at its own size: an MPF image (a Portrait disparity map, a matte, a gain
    /// map) that then still lines up with the render. Its metadata segments (Apple's XMP
    /// saying what it is) are kept; a gray image stays gray.
    static func reshapedJPEG(_ image: [UInt8], shownIn orientation: EXIFOrientation, recipe: FilterRecipe) throws -> [UInt8] {
        let segments = try JPEGSegments(parsing: image)
        let upright = try JPEGCodec.decode(image, output: .asStored).pixels.applying(orientation)
        let reshaped = recipe.geometry(width: upright.width, height: upright.height).apply(to: upright).applying(orientation.inverse)
        let encoded = try JPEGCodec.encode(reshaped, quality: 90)
        var metadata: [UInt8] = []
        for s in segments.segments where (0xE0...0xEF).contains(s.marker) {
            let length = s.payload.count + 2
            metadata += [0xFF, s.marker, UInt8(length >> 8), UInt8(length & 0xFF)] + Array(s.payload)
        }
        // The encoder's own JFIF APP0 gives way to the image's own segments.
        var bodyStart = 2
        if !metadata.isEmpty, let app0 = try JPEGSegments(parsing: encoded).segments.first, app0.marker == 0xE0 {
            bodyStart = app0.offset + 4 + app0.payload.count
        }
        return [0xFF, 0xD8] + metadata + Array(encoded[bodyStart...])
    }

    /// The original's MPF index and the bytes of every image after the primary, when all
    /// of them are whole; nil otherwise.
    static func carriedMPFImages(_ bytes: [UInt8], segments: JPEGSegments) -> (MPFIndex, JPEGSegments.Segment, [[UInt8]])? {
        guard let mpf = segments.mpfSegment, let index = try? MPFIndex(segment: mpf) else { return nil }
        var images: [[UInt8]] = []
        for entry in index.entries where !entry.isPrimary {
            guard entry.offset + entry.size <= bytes.count, entry.size > 0 else { return nil }
            images.append(Array(bytes[entry.offset..<(entry.offset + entry.size)]))
        }
        guard index.entries.first?.isPrimary == true else { return nil }
        return (index, mpf, images)
    }

    /// The Exif a chunk of a PNG holds: an eXIf chunk's, or that of ImageMagick's older raw
    /// profile (a zTXt chunk); nil for any other chunk.
    static func exifTIFF(of chunk: (type: String, range: Range<Int>), in bytes: [UInt8]) -> [UInt8]? {
        let data = bytes[(chunk.range.lowerBound + 8)..<(chunk.range.upperBound - 4)]
        return chunk.type == "eXIf" ? Array(data) : chunk.type == "zTXt" ? PNGCodec.rawExifProfile(zTXt: data) : nil
    }

    /// Chunks a PNG render carries over from its original: colour profile, Exif (with its
    /// orientation), text and XMP, pixel density, time. gAMA and cHRM are not carried:
    /// libpng's decoder already turned the samples into sRGB by them.
    static let carriedPNGChunks: Set<String> = ["iCCP", "sRGB", "eXIf", "tEXt", "zTXt", "iTXt", "pHYs", "tIME"]

    /// A PNG stays a PNG: 8-bit RGB, or 16-bit when the original is (its significant bits
    /// kept), gray when the original is and the render stayed gray (a palette becomes RGB), its transparency kept
    /// as it was, its Exif orientation and metadata chunks. A PNG larger than `bandedAbove`
    /// pixels is rendered by bands of rows where it can be (``renderedByBands(_:chunks:recipe:shownIn:canReorient:)``),
    /// else whole, a 16-bit one at 8 bits.
    static func renderPNG(bytes: [UInt8], recipe: FilterRecipe, bandedAbove: Int = tiledAbovePixels) throws -> Render {
        let chunks = try PNGChunks(parsing: bytes)
        try checkSize(width: chunks.width, height: chunks.height)
        var warnings: [String] = []
        var carried = carriedPNGChunks
        var encoded: [UInt8]
        // The render's size, and the render at 8 bits (as stored, whole or averaged down)
        // for its Exif thumbnail.
        let size: (width: Int, height: Int)
        let preview: PixelBuffer<UInt8>?
        let exifOrientation = chunks.exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }?.orientation
        let orientation = EXIFOrientation(exifValue: exifOrientation ?? 1)
        // The orientation the render is shown in, where it is not the original's.
        var turned: EXIFOrientation?
        if chunks.bitDepth == 16, chunks.width * chunks.height <= bandedAbove {
            // Held whole at 16 bits (6 bytes a pixel, several copies) up to the size a HEIC is.
            let (samples, eight) = try filteredSixteenBitPNG(bytes, chunks: chunks, recipe: recipe)
            encoded = try PNGCodec.encode(samples, photographic: true)
            (size, preview) = ((eight.width, eight.height), eight)
            // Its samples are as the file stored them, so what says how to read them stays.
            carried.formUnion(["gAMA", "cHRM"])
        } else if chunks.width * chunks.height > bandedAbove,
            let banded = try renderedByBands(
                bytes, chunks: chunks, recipe: recipe, shownIn: orientation, canReorient: chunks.exifTIFF == nil || exifOrientation != nil,
                keepsPreview: chunks.chunks.contains { carriedPNGChunks.contains($0.type) && exifTIFF(of: $0, in: bytes).flatMap(ExifThumbnail.thumbnail(in:)) != nil })
        {
            encoded = banded.encoded
            (size, preview) = ((banded.width, banded.height), banded.preview)
            if banded.orientation != orientation { turned = banded.orientation }
            if !banded.correctedToSRGB { carried.formUnion(["gAMA", "cHRM"]) }
        } else {
            if chunks.bitDepth == 16 {
                warnings.append(
                    "the 16-bit PNG was rendered with 8 bits per sample (above \(bandedAbove / 1_000_000) megapixels, camlib keeps 16 bits "
                        + "only for a non-interlaced PNG edited without depth, its geometry before all but colour steps)")
            }
            let (rgb, alpha, _) = try filteredPNG(bytes, chunks: chunks, recipe: recipe)
            // Gray (colour types 0 and 4) stays gray while the render is.
            let colours = [0, 4].contains(chunks.colorType) && rgb.isNeutral ? 1 : 3
            if alpha == nil && colours == 3 {
                encoded = try PNGCodec.encode(.eight(rgb), photographic: true)
            } else {
                let outChannels = colours + (alpha == nil ? 0 : 1)
                let out = rgb.components.withUnsafeBufferPointer { drawn in
                    PixelBuffer<UInt8>(width: rgb.width, height: rgb.height, channels: outChannels) { out in
                        for i in 0..<(rgb.width * rgb.height) {
                            for c in 0..<colours { out[i * outChannels + c] = drawn[i * 3 + c] }
                            if let alpha { out[i * outChannels + colours] = alpha[i] }
                        }
                    }
                }
                encoded = try PNGCodec.encode(.eight(out), photographic: true)
            }
            (size, preview) = ((rgb.width, rgb.height), rgb)
        }
        // Signature and the new IHDR, the original's metadata chunks, then the new image.
        guard let header = try PNGChunks(parsing: encoded).chunks.first, header.type == "IHDR" else {
            throw MediaAnalyzer.Failure(reason: "internal error: the encoded PNG does not start with its header")
        }
        var metadata: [UInt8] = []
        for chunk in chunks.chunks where carried.contains(chunk.type) {
            // An Exif thumbnail shows the render, not the original: the Exif (in an eXIf
            // chunk, or ImageMagick's older raw profile, which becomes one) is written
            // again with a thumbnail of the render.
            var tiff = exifTIFF(of: chunk, in: bytes)
            if recipe.changesGeometry, tiff != nil {
                // The size it declares, after a crop or a turn, and how it is shown.
                ExifDimensions.replacing(in: &tiff!, width: size.width, height: size.height, orientation: turned?.rawValue)
                if ExifThumbnail.thumbnail(in: tiff!) == nil {
                    metadata += PNGCodec.chunk(type: "eXIf", data: tiff!)
                    continue
                }
            }
            if let tiff, let old = ExifThumbnail.thumbnail(in: tiff) {
                guard let preview else { throw MediaAnalyzer.Failure(reason: "internal error: the render kept no picture for its Exif thumbnail") }
                let rewritten = try exifWithNewThumbnail(tiff, replacing: old, from: preview, room: Int(Int32.max), warnings: &warnings)
                metadata += PNGCodec.chunk(type: "eXIf", data: rewritten)
                continue
            }
            metadata += bytes[chunk.range]
        }
        if let turned, chunks.exifTIFF == nil {
            // A turn of a PNG without Exif: an Exif that says how to show it.
            var tiff = TIFFWriter()
            tiff.ifd0 = [(0x0112, .short([UInt16(turned.rawValue)]))]
            metadata += PNGCodec.chunk(type: "eXIf", data: tiff.bytes())
        }
        encoded.insert(contentsOf: metadata, at: header.range.upperBound)
        return Render(bytes: encoded, format: .png, warnings: warnings)
    }

    /// JPEG quality 92, or the highest quality down to 40 (found by halving the interval
    /// three times: turbojpeg encodes fast) whose bytes fit `maximumBytes`.
    static func encodeJPEG(_ pixels: PixelBuffer<UInt8>, maximumBytes: Int) throws -> [UInt8] {
        var best = try JPEGCodec.encode(pixels, quality: 92)
        guard maximumBytes > 0, best.count > maximumBytes else { return best }
        var (fits, tooBig) = (40, 92)
        var found = false
        for _ in 0..<3 {
            let quality = (fits + tooBig) / 2
            let encoded = try JPEGCodec.encode(pixels, quality: quality)
            if encoded.count <= maximumBytes {
                (best, fits, found) = (encoded, quality, true)
            } else {
                tooBig = quality
            }
        }
        return found ? best : try JPEGCodec.encode(pixels, quality: 40)
    }

    /// `tiff` with a thumbnail of `stored` (the render as stored) in place of `old`, at the
    /// old one's size, within `room` bytes; the Exif as it was, with a warning, when not.
    static func exifWithNewThumbnail(
        _ tiff: [UInt8], replacing old: [UInt8], from stored: PixelBuffer<UInt8>, room: Int, warnings: inout [String]
    ) throws -> [UInt8] {
        let side = (try? JPEGCodec.decode(old)).map { max($0.pixels.width, $0.pixels.height) } ?? 160
        let small = try PixelScaler.scaledToFit(stored, maxSide: max(16, min(side, 512)))
        for quality in [80, 60, 40] {
            if let rewritten = ExifThumbnail.replacing(in: tiff, with: try JPEGCodec.encode(small, quality: quality)), rewritten.count <= room {
                return rewritten
            }
        }
        warnings.append("the Exif thumbnail could not be made again (no room in the Exif segment): it still shows the original")
        return tiff
    }

    static func renderJPEG(
        bytes: [UInt8], recipe: FilterRecipe, embeddedMovie: [UInt8]? = nil, identifier: (old: String, new: String)? = nil,
        depth: DepthField? = nil
    ) throws -> Render {
        let segments = try JPEGSegments(parsing: bytes)
        let (filtered, orientation) = try filteredJPEG(bytes, segments: segments, recipe: recipe, depth: depth)
        var stored = filtered
        // A gray original stays gray when the recipe left it gray (mono, noir, a sepia of
        // intensity 0): three channels of the same values would weigh half as much again.
        let frame = segments.segments.first { (0xC0...0xCF).contains($0.marker) && ![0xC4, 0xC8, 0xCC].contains($0.marker) }
        if let frame, frame.payload.count > 5, frame.payload[frame.payload.startIndex + 5] == 1, let gray = stored.grayIfNeutral() {
            stored = gray
        }
        // The original's metadata segments (its JFIF, Exif with its MakerNote, XMP, ICC
        // profile, …) in their order, then the new image data, then the original's MPF
        // images (Portrait disparity and mattes, gain maps) with the MPF index rewritten.
        // The Exif thumbnail is made again from the render; a JFXX thumbnail is dropped.
        var mpfImages = carriedMPFImages(bytes, segments: segments)
        if recipe.changesGeometry, let (index, mpf, images) = mpfImages {
            // Disparity, mattes and gain maps cropped and turned with the photo.
            mpfImages = (index, mpf, try images.enumerated().map { i, image in
                do {
                    return try reshapedJPEG(image, shownIn: orientation, recipe: recipe)
                } catch {
                    throw MediaAnalyzer.Failure(reason: "MPF image \(i + 2) cannot be reshaped with the photo: \(error)")
                }
            })
        }
        var warnings: [String] = []
        var metadata: [UInt8] = []
        var mpfSegmentAt: Int?
        let jfif = Array("JFIF".utf8) + [0], exifHeader = Array("Exif".utf8) + [0, 0]
        var keptJFIF = false
        for s in segments.segments where (0xE0...0xEF).contains(s.marker) {
            if s.marker == 0xE0 {
                guard s.payload.starts(with: jfif), metadata.isEmpty else { continue }
                keptJFIF = true
            }
            if let mpf = segments.mpfSegment, s.offset == mpf.offset {
                guard mpfImages != nil else {
                    warnings.append("the original's MPF images could not be carried over (their index is damaged)")
                    continue
                }
                mpfSegmentAt = 2 + metadata.count
            }
            var payload = Array(s.payload)
            let xmpHeader = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            if let movie = embeddedMovie, s.marker == 0xE1, payload.starts(with: xmpHeader) {
                let packet = String(decoding: payload.dropFirst(xmpHeader.count), as: UTF8.self)
                payload = xmpHeader + Array(MotionPhotoXMP.declaring(movieLength: movie.count, in: packet).utf8)
                guard payload.count + 2 <= 0xFFFF else { throw MediaAnalyzer.Failure(reason: "the rewritten XMP no longer fits its segment") }
            }
            if s.marker == 0xE1, payload.starts(with: exifHeader) {
                var tiff = Array(payload.dropFirst(exifHeader.count))
                if recipe.changesGeometry {
                    ExifDimensions.replacing(in: &tiff, width: stored.width, height: stored.height)
                    payload = exifHeader + tiff
                }
                if let old = ExifThumbnail.thumbnail(in: tiff) {
                    let room = 0xFFFF - 2 - exifHeader.count
                    payload = exifHeader + (try exifWithNewThumbnail(tiff, replacing: old, from: stored, room: room, warnings: &warnings))
                }
            }
            let length = payload.count + 2
            metadata += [0xFF, s.marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        if let (old, new) = identifier { RenderIdentifier.replace(old, with: new, in: &metadata) }
        // The picture may take what the original's did: its image less the metadata.
        let originalPicture = (JPEGSegments.endOfImage(in: bytes) ?? bytes.count) - 2 - metadata.count
        let encoded = try encodeJPEG(stored, maximumBytes: originalPicture)
        // The encoder's own JFIF APP0 goes when the original's JFIF or Exif comes first
        // (APP1 must follow SOI, or the original's JFIF).
        let newSegments = try JPEGSegments(parsing: encoded)
        var bodyStart = 2
        if let app0 = newSegments.segments.first, app0.marker == 0xE0, keptJFIF || segments.exifTIFF != nil {
            bodyStart = app0.offset + 4 + app0.payload.count
        }
        var output = [0xFF, 0xD8] + metadata + Array(encoded[bodyStart...])
        if let at = mpfSegmentAt, let (index, mpf, images) = mpfImages {
            var layout: [(start: Int, size: Int)] = [(0, output.count)]
            var position = output.count
            for image in images {
                layout.append((position, image.count))
                position += image.count
            }
            let payload = try index.rewritten(payload: mpf.payload, images: layout, tiffHeader: at + 8)
            output.replaceSubrange((at + 4)..<(at + 4 + payload.count), with: payload)
            for image in images { output += image }
        }
        return Render(bytes: output, format: .jpeg, warnings: warnings)
    }
}
