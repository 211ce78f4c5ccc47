import Foundation
import Testing
import TestSupport

@testable import Codecs
@testable import Containers
@testable import Imaging

private func bytes(_ relative: String) throws -> [UInt8] {
    let path = Media.path(relative)
    guard FileManager.default.fileExists(atPath: path) else { throw MissingMedia(path: path) }
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct RealStillTests {
    @Test func heicWithIrot270IsDisplayedPortrait() throws {
        let file = try HEIFFile(path: Media.path("apple-live-photo/IMG_3582.HEIC"))
        let image = try file.primaryImage()
        #expect(image.width == 4284 && image.height == 5712)
        #expect(image.orientation == .rotate90CW)
        let exif = try EXIFMetadata(tiff: try #require(image.exifTIFF()))
        #expect(exif.make == "Apple" && exif.model == "iPhone 15 Pro")
        #expect(exif.captureTime?.iso8601 == "2025-05-26T09:27:06.603-05:00")
        #expect(exif.appleMakerNote?.contentIdentifier == "602FEBB7-6B59-4799-96E6-9C8484D873C7")
        #expect(exif.appleMakerNote?.livePhotoVideoIndex == 8_595_224_612)
        #expect(exif.lensModel == "iPhone 15 Pro back triple camera 6.765mm f/1.78")
        let loc = try #require(exif.location)
        #expect(abs(loc.latitude - 34.6647722222222) < 1e-9 && abs(loc.longitude + 86.4703833333333) < 1e-9)
    }

    @Test func heicThumbnailDecodesInDisplayOrientation() throws {
        let image = try HEIFFile(path: Media.path("apple-live-photo/IMG_3582.HEIC")).primaryImage()
        let thumb = try #require(image.thumbnail())
        let pixels = try thumb.decodeRGB()
        #expect(pixels.width == 312 && pixels.height == 416)
    }

    @Test func scaledDecodeMatchesLibheifsOwnColourConversion() throws {
        // 8-bit HEVC from an iPhone, and a 10-bit one, through swscale's YCbCr→RGB.
        for name in ["apple-live-photo/IMG_3582_edited.heic", "apple-misc/iphone_15_pro.heic", "orientation/kimono.rotate90.avif"] {
            let image = try HEIFFile(path: Media.path(name)).primaryImage()
            let fast = try image.decodeScaled(maxSide: 320)
            let reference = try PixelScaler.scaledToFit(image.decodeRGB(), maxSide: 320)
            #expect(fast.width == reference.width && fast.height == reference.height, "\(name)")
            let diff = zip(fast.components, reference.components).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            let mean = Double(diff) / Double(fast.components.count)
            // A wrong matrix or range would shift whole channels; check the bias too.
            let bias = (0..<3).map { c in
                stride(from: c, to: fast.components.count, by: 3).reduce(0.0) { $0 + Double(Int(fast.components[$1]) - Int(reference.components[$1])) }
                    / Double(fast.components.count / 3)
            }
            #expect(mean < 2.5 && bias.allSatisfy { abs($0) < 1.5 }, "\(name): mean difference \(mean), bias per channel \(bias)")
        }
    }

    @Test func aGridScaledFromItsRowsOfTilesIsTheWholeDecodeScaled() throws {
        // iPhone HEICs are grids of 512x512 tiles; the others turned by irot.
        var grids = 0
        for name in ["apple-live-photo/IMG_3582_edited.heic", "apple-misc/iphone_15_pro.heic", "orientation/IMG_0102.HEIC", "orientation/IMG_3578.heic"] {
            let image = try HEIFFile(path: Media.path(name)).primaryImage()
            guard image.storedTiling != nil, !image.isCropped else { continue }
            grids += 1
            for maxSide in [320, 1024] {
                let whole = try image.decodeScaled(maxSide: maxSide, bandedAbove: .max)
                let banded = try image.decodeScaled(maxSide: maxSide, bandedAbove: 0)
                #expect(banded.width == whole.width && banded.height == whole.height, "\(name)")
                let mean = Double(zip(banded.components, whole.components).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(whole.components.count)
                let bias = (0..<3).map { c in
                    stride(from: c, to: whole.components.count, by: 3).reduce(0.0) { $0 + Double(Int(banded.components[$1]) - Int(whole.components[$1])) }
                        / Double(whole.components.count / 3)
                }
                #expect(mean < 2.5 && bias.allSatisfy { abs($0) < 1.5 }, "\(name) in \(maxSide): mean difference \(mean), bias per channel \(bias)")
            }
        }
        #expect(grids >= 2)
    }

    @Test func scaledAVIFMatchesTheCorpusReferenceRendering() throws {
        // kimono.png is how kimono.rotate90.avif must look once its irot is applied.
        let reference = try PixelScaler.scaledToFit(PNGCodec.decodeRGB(bytes("orientation/kimono.png")), maxSide: 320)
        let decoded = try HEIFFile(path: Media.path("orientation/kimono.rotate90.avif")).primaryImage().decodeScaled(maxSide: 320)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        let bias = (0..<3).map { c in
            stride(from: c, to: decoded.components.count, by: 3).reduce(0.0) {
                $0 + Double(Int(decoded.components[$1]) - Int(reference.components[$1]))
            } / Double(decoded.components.count / 3)
        }
        let mean = Double(zip(decoded.components, reference.components).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) })
            / Double(decoded.components.count)
        #expect(mean < 3 && bias.allSatisfy { abs($0) < 1.5 }, "mean \(mean), bias \(bias)")
    }

    @Test func avifTransformsFoldIntoOneOrientation() throws {
        let cases: [(String, EXIFOrientation)] = [
            ("kimono.avif", .up), ("kimono.rotate90.avif", .rotate90CW), ("kimono.rotate270.avif", .rotate270CW),
            ("kimono.mirror-horizontal.avif", .upMirrored), ("kimono.mirror-vertical.avif", .rotate180Mirrored),
        ]
        for (name, orientation) in cases {
            let image = try HEIFFile(path: Media.path("orientation/" + name)).primaryImage()
            #expect(image.orientation == orientation, "\(name)")
            #expect(image.width == 722 && image.height == 1024, "\(name)")
        }
    }

    @Test func jpegDecodesAtAReducedDCTScale() throws {
        let jpeg = try bytes("orientation/Landscape_6.jpg")
        let decoded = try JPEGCodec.decode(jpeg, atLeast: 320)
        // 1200x1800 stored; the smallest scale with a long side >= 320 is 1/4 → 300x450.
        #expect(decoded.pixels.width == 300 && decoded.pixels.height == 450)
        #expect(decoded.warning == nil)
    }

    @Test func truncatedJPEGDecodesWithAWarning() throws {
        let decoded = try JPEGCodec.decode(try bytes("malformed/photoprism__photoprism__animated-earth.jpg"))
        #expect(decoded.pixels.width == 300)
        #expect(decoded.warning != nil)
    }

    @Test func pngDecodes() throws {
        let png = try bytes("orientation/kimono.png")
        let pixels = try PNGCodec.decodeRGB(png)
        #expect(pixels.width == 722 && pixels.height == 1024)
        let chunks = try PNGChunks(parsing: png)
        #expect(chunks.width == 722 && chunks.bitDepth == 8)
    }
}

@Test func jpegRoundTripsThroughTurboJPEG() throws {
    var image = PixelBuffer<UInt8>(width: 64, height: 32, channels: 3)
    for y in 0..<32 { for x in 0..<64 { image[x: x, y: y, channel: 0] = UInt8(x * 4); image[x: x, y: y, channel: 1] = 128 } }
    let jpeg = try JPEGCodec.encode(image, quality: 95)
    let back = try JPEGCodec.decode(jpeg).pixels
    #expect(back.width == 64 && back.height == 32)
    #expect(abs(Int(back[x: 40, y: 10, channel: 0]) - 160) <= 6)
}

@Test func emptyPNGIsAnError() {
    #expect(throws: PNGError.self) { try PNGCodec.decodeRGB([]) }
}

@Test func scalingAveragesAreasAndKeepsAspect() throws {
    // A one-pixel checkerboard of 0 and 200 halved: an area filter gives flat grey
    // (~100) where point sampling would give 0 or 200 (aliasing).
    var board = PixelBuffer<UInt8>(width: 64, height: 32, channels: 1)
    for y in 0..<32 { for x in 0..<64 where (x + y) % 2 == 1 { board[x: x, y: y, channel: 0] = 200 } }
    let out = try PixelScaler.scaledToFit(board, maxSide: 32)
    #expect(out.width == 32 && out.height == 16)
    let interior = (2..<14).flatMap { y in (2..<30).map { x in Int(out[x: x, y: y, channel: 0]) } }
    #expect(interior.allSatisfy { abs($0 - 100) <= 3 }, "\(interior.min()!)...\(interior.max()!)")
    let big = PixelBuffer<UInt8>(width: 4032, height: 3024, channels: 3)
    let thumb = try PixelScaler.scaledToFit(big, maxSide: 320)
    #expect(thumb.width == 320 && thumb.height == 240)
    let small = PixelBuffer<UInt8>(width: 100, height: 50, channels: 3)
    #expect(try PixelScaler.scaledToFit(small, maxSide: 320) == small)
}

/// HEIF pictures camlib makes itself.
struct SyntheticHEIFTests {
    /// A grid of camlib's largest size decodes whole (what an edit that must see it whole
    /// does, a comic then a crop): 8-bit RGB of 16384x11264 is 553 MB, past libheif's own
    /// limit on one allocation (512 MB).
    @Test func aGridOfTheLargestSizeDecodesWhole() throws {
        let (tileWidth, tileHeight, columns, rows) = (2048, 1408, 8, 8)
        let tiling = HEIFImage.Tiling(
            columns: columns, rows: rows, tileWidth: tileWidth, tileHeight: tileHeight, width: columns * tileWidth, height: rows * tileHeight)
        #expect(tiling.width * tiling.height * 3 > 512 << 20 && tiling.width * tiling.height <= DecodeLimits.maximumPixels)
        var settings = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        settings.quality = 50
        // Flat tiles, each of its own grey (cheap to code), so a tile out of place shows.
        let encoded = try HEIFEncoder.encodeGrid(HEIFEncoder.GridStill(tiling: tiling, settings: settings), bits: 8, tile: { column, row, _ in
            let level = UInt8(40 + (row * columns + column) % 160)
            return PixelBuffer<UInt8>(width: tileWidth, height: tileHeight, channels: 3, components: [UInt8](repeating: level, count: tileWidth * tileHeight * 3))
        }, thumbnail: { nil })
        let image = try HEIFFile(bytes: encoded).primaryImage()
        let whole = try image.decodeStoredRGB()
        #expect(whole.width == tiling.width && whole.height == tiling.height)
        for (column, row) in [(0, 0), (7, 7), (5, 2)] {
            let level = Int(40 + (row * columns + column) % 160)
            let sample = Int(whole[x: column * tileWidth + tileWidth / 2, y: row * tileHeight + tileHeight / 2, channel: 1])
            #expect(abs(sample - level) <= 3, "tile \(column),\(row): \(sample), coded \(level)")
        }
    }
}
