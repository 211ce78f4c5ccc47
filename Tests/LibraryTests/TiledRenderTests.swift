import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// HEIC grids above `StillRenderer.tiledAbovePixels` render a tile at a time. Here a real
/// iPhone grid (IMG_3582: 24 megapixels in 512x512 tiles, turned by irot, with aux
/// images) is rendered both ways, the tiled way by lowering the threshold, and the two
/// must be the same edit in the same kind of file.
struct TiledRenderTests {
    /// comic draws from its summary alone (the tiles are read once); posterize reads them
    /// again as it draws.
    @Test(arguments: ["comic", "posterize"])
    func aGridRenderedTileByTileIsTheSameEditAsOneRenderedWhole(filter: String) throws {
        let path = Media.path("apple-live-photo/IMG_3582.HEIC")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let recipe = FilterRecipe(steps: [try FilterStep(name: filter)])
        func render(tiledAbove: Int) throws -> [UInt8] {
            try StillRenderer.renderHEIF(
                path: path, bytes: bytes, auxiliaryBytes: bytes, recipe: recipe, embeddedMovie: nil, tiledAbove: tiledAbove
            ).bytes
        }
        let whole = try render(tiledAbove: .max), tiled = try render(tiledAbove: 0)
        let original = try HEIFFile(bytes: bytes).primaryImage()
        let (a, b) = (try HEIFFile(bytes: whole).primaryImage(), try HEIFFile(bytes: tiled).primaryImage())
        // The tiled render is a grid of the original's tiles, shown the same way.
        #expect(a.storedTiling == nil)  // held whole, it is coded whole
        #expect(b.storedTiling == original.storedTiling)
        #expect(b.orientation == original.orientation && b.width == original.width && b.height == original.height)
        // It carries what the whole render carries: aux images, metadata, a colour
        // description on the grid, a thumbnail of the edit, and stays within the bytes.
        let (metaA, metaB) = (try HEIFMetaBox(file: whole), try HEIFMetaBox(file: tiled))
        #expect(metaB.properties(of: metaB.primaryItemID).contains { $0.type == "colr" && $0.association.essential })
        #expect(metaB.references.filter { $0.type == "auxl" }.count == metaA.references.filter { $0.type == "auxl" }.count)
        #expect(b.exifTIFF() != nil && b.exifTIFF() == a.exifTIFF())
        #expect(try HEIFEncoder.codedBytes(of: tiled) <= (try HEIFEncoder.codedBytes(of: bytes)))
        // A thumbnail as the original has, at its size.
        let thumbnail = try #require(b.thumbnail()), originalThumbnail = try #require(original.thumbnail())
        #expect(max(thumbnail.width, thumbnail.height) == max(originalThumbnail.width, originalThumbnail.height))
        // Both look alike, seen from afar (blocks of 16x16 pixels) and in the thumbnail.
        let (pa, pb) = (try a.decodeRGB(), try b.decodeRGB())
        #expect(Self.meanBlockDifference(pa, pb, block: 16) < 3)
        let small = try thumbnail.decodeRGB()
        #expect(Self.meanBlockDifference(Self.shrunk(pb, to: small.width, small.height), small, block: 4) < 6)
    }

    /// Crops, turns and flips first, or after colour steps (in display coordinates, of a grid turned by irot), are
    /// a rectangle of the stored picture shown another way: rendered tile by tile, it is
    /// cut into new tiles of the same size, shown by a new irot/imir (and Exif orientation),
    /// and is the edit rendered whole; its aux images are reshaped too.
    @Test(arguments: [
        "crop:x=0.13,y=0.21,width=0.6,height=0.5 exposure:ev=0.4 posterize", "crop:aspect=1:1 flip:direction=horizontal flip:direction=horizontal",
        "rotate:degrees=90 crop:x=0.1,y=0.15,width=0.5,height=0.6 flip:direction=vertical mono",
        // After steps that look at one pixel at a time.
        "exposure:ev=0.3 warmth:amount=0.2 rotate:degrees=270 crop:aspect=1:1",
        // Straightened: each tile resampled from the original's tiles it reads.
        "crop:aspect=1:1 straighten:degrees=-2.5 mono",
    ])
    func aCropOfAGridIsRenderedTileByTile(recipe text: String) throws {
        let (recipe, original, a, b) = try Self.renderedBothWays(text)
        let tiling = try #require(b.storedTiling)
        #expect(a.storedTiling == nil)
        #expect(tiling.tileWidth == original.storedTiling?.tileWidth && tiling.tileHeight == original.storedTiling?.tileHeight)
        #expect(b.width == a.width && b.height == a.height && b.width * b.height < original.width * original.height)
        let turned = text.contains("rotate")
        #expect((b.orientation == original.orientation) == !turned)
        // Its Exif says its new size (and, turned, its new orientation), and its aux images
        // are there, at the edit's shape.
        if turned {
            let exif = try EXIFMetadata(tiff: try #require(b.exifTIFF()))
            #expect(exif.orientation == b.orientation.rawValue)
        } else {
            #expect(b.exifTIFF() == a.exifTIFF())
        }
        let (auxA, auxB) = (a.auxiliaryImages().images, b.auxiliaryImages().images)
        #expect(auxA.count == auxB.count && !auxB.isEmpty)
        for (x, y) in zip(auxA, auxB) { #expect(x.width == y.width && x.height == y.height) }
        let (pa, pb) = (try a.decodeRGB(), try b.decodeRGB())
        #expect(Self.meanBlockDifference(pa, pb, block: 16) < 3)
        // And it is the right part of the photo: the recipe over the original held upright.
        #expect(Self.meanBlockDifference(recipe.apply(to: try original.decodeRGB()), pb, block: 16) < 3)
    }

    /// Geometry after a step that looks at more than one pixel needs the picture whole:
    /// above the tiled size it is put together from its tiles, filtered in its own
    /// storage and coded as a grid of the original's tile size (x265 coding 200
    /// megapixels as one picture held gigabytes), the same edit as a render held whole.
    @Test(arguments: ["comic crop:aspect=1:1", "shadows:amount=0.4 straighten:degrees=2 rotate:degrees=90"])
    func geometryAfterAStepThatSeesThePictureWholeIsCodedAsAGrid(recipe text: String) throws {
        let (_, original, a, b) = try Self.renderedBothWays(text)
        let tiling = try #require(b.storedTiling)
        #expect(tiling.tileWidth == original.storedTiling?.tileWidth && tiling.tileHeight == original.storedTiling?.tileHeight)
        #expect(b.width == a.width && b.height == a.height && b.orientation == original.orientation)
        #expect(b.exifTIFF() == a.exifTIFF())
        #expect(a.auxiliaryImages().images.count == b.auxiliaryImages().images.count)
        // A thumbnail as the whole render's (its side within a pixel: averaged down by its
        // short side).
        let thumbnail = try #require(b.thumbnail()), wholeThumbnail = try #require(a.thumbnail())
        #expect(abs(max(thumbnail.width, thumbnail.height) - max(wholeThumbnail.width, wholeThumbnail.height)) <= 1)
        #expect(Self.meanBlockDifference(try a.decodeRGB(), try b.decodeRGB(), block: 16) < 3)
    }

    /// The depth step reads the picture whole and upright, with its depth: above the tiled
    /// size the grid is put together from its tiles and coded as a grid too (a 48-megapixel
    /// grid rendered whole peaked at 1.06 GB, a 197-megapixel one at 3.7 GB), and it is the
    /// same edit as one held whole, its depth map carried.
    @Test func theDepthStepOnAGridIsCodedAsAGrid() throws {
        let (_, original, a, b) = try Self.renderedBothWays("depth:aperture=1.4,x=0.5,y=0.4")
        let tiling = try #require(b.storedTiling)
        #expect(tiling == original.storedTiling)
        #expect(b.width == a.width && b.height == a.height && b.orientation == original.orientation)
        #expect(b.exifTIFF() == a.exifTIFF())
        let depthMaps = b.auxiliaryImages().images.filter { $0.depthRepresentation != nil }
        #expect(!depthMaps.isEmpty && a.auxiliaryImages().images.count == b.auxiliaryImages().images.count)
        let (pa, pb) = (try a.decodeRGB(), try b.decodeRGB())
        #expect(Self.meanBlockDifference(pa, pb, block: 16) < 3)
        // And the step drew (the original is further from it than the two renders are apart).
        #expect(Self.meanBlockDifference(try original.decodeRGB(), pb, block: 1) > 2 * Self.meanBlockDifference(pa, pb, block: 1))
    }

    /// A picture coded whole rather than as a grid (a Pixel's Motion Photo HEIC here; heif-enc,
    /// GIMP and ImageMagick write them so) is decoded whole above the tiled size, to its
    /// 4:2:0 planes, and coded as a grid of 512-pixel tiles: x265 coding a 64-megapixel
    /// picture as one took the edit over 1 GB. Drawn from the planes a tile at a time where
    /// the recipe allows (a turn then shown by a new orientation, as a grid's), or
    /// converted whole (shadows sees the whole picture), it is the same edit as one coded whole.
    @Test(arguments: [
        "comic", "shadows:amount=0.3 straighten:degrees=3", "rotate:degrees=90 exposure:ev=0.3",
        "crop:x=0.13,y=0.21,width=0.6,height=0.5 exposure:ev=0.4", "crop:aspect=1:1 straighten:degrees=-2.5 mono",
    ])
    func aPictureCodedWholeIsCodedAsAGridAboveTheTiledSize(recipe text: String) throws {
        let (recipe, original, a, b) = try Self.renderedBothWays(text, of: "android-depth-motion/motion_photo.heic")
        #expect(original.storedTiling == nil && a.storedTiling == nil)
        let tiling = try #require(b.storedTiling)
        #expect(tiling.tileWidth == 512 && tiling.tileHeight == 512)
        #expect(b.width == a.width && b.height == a.height)
        if text.contains("rotate") {
            #expect(b.orientation != original.orientation)
            // (This photo's Exif, if it has one, says the new orientation.)
            #expect((a.exifTIFF() == nil) == (b.exifTIFF() == nil))
            if let tiff = b.exifTIFF() { #expect(try EXIFMetadata(tiff: tiff).orientation == b.orientation.rawValue) }
        } else {
            #expect(b.orientation == a.orientation && b.exifTIFF() == a.exifTIFF())
        }
        #expect((a.thumbnail() == nil) == (b.thumbnail() == nil))
        let pb = try b.decodeRGB()
        #expect(Self.meanBlockDifference(try a.decodeRGB(), pb, block: 16) < 3)
        // And it is the right part of the photo: the recipe over the original held upright.
        #expect(Self.meanBlockDifference(recipe.apply(to: try original.decodeRGB()), pb, block: 16) < 3)
    }

    /// `relative` (IMG_3582) through the recipe `text`, held whole (`a`) and the tiled way
    /// (`b`, the threshold lowered), with the same warnings; and the original's primary image.
    static func renderedBothWays(_ text: String, of relative: String = "apple-live-photo/IMG_3582.HEIC") throws
        -> (recipe: FilterRecipe, original: HEIFImage, a: HEIFImage, b: HEIFImage)
    {
        let path = Media.path(relative)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let recipe = FilterRecipe(steps: try text.split(separator: " ").map { try FilterStep(parsing: String($0)) })
        let depth = recipe.needsDepth ? try DepthField.required(by: bytes) : nil
        func render(tiledAbove: Int) throws -> StillRenderer.Render {
            try StillRenderer.renderHEIF(
                path: path, bytes: bytes, auxiliaryBytes: bytes, recipe: recipe, embeddedMovie: nil, tiledAbove: tiledAbove, depth: depth)
        }
        let whole = try render(tiledAbove: .max), tiled = try render(tiledAbove: 0)
        #expect(tiled.warnings == whole.warnings)
        let original = try HEIFFile(bytes: bytes).primaryImage()
        return (recipe, original, try HEIFFile(bytes: whole.bytes).primaryImage(), try HEIFFile(bytes: tiled.bytes).primaryImage())
    }

    /// Mean difference of `block`-sided block averages, in levels.
    static func meanBlockDifference(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>, block: Int) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0.0, count = 0
        for by in 0..<(a.height / block) {
            for bx in 0..<(a.width / block) {
                for c in 0..<3 {
                    var sa = 0, sb = 0
                    for y in 0..<block {
                        for x in 0..<block {
                            sa += Int(a[x: bx * block + x, y: by * block + y, channel: c])
                            sb += Int(b[x: bx * block + x, y: by * block + y, channel: c])
                        }
                    }
                    total += abs(Double(sa - sb)) / Double(block * block)
                    count += 1
                }
            }
        }
        return total / Double(count)
    }

    /// Nearest-neighbour shrink, enough to compare with a thumbnail from afar.
    static func shrunk(_ p: PixelBuffer<UInt8>, to width: Int, _ height: Int) -> PixelBuffer<UInt8> {
        var out = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { out[x: x, y: y, channel: c] = p[x: (2 * x + 1) * p.width / (2 * width), y: (2 * y + 1) * p.height / (2 * height), channel: c] }
            }
        }
        return out
    }
}
