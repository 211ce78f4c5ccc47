import Foundation
import Testing
import TestSupport

@testable import Codecs
@testable import Imaging

/// Stills read and written as their coded Y'CbCr 4:2:0, without RGB pictures between
/// (how a comic edit renders a HEIC).
struct HEIFYCbCrTests {
    /// Colours as BT.601 full-range Y'CbCr, rounded.
    static func ycbcr(_ r: Double, _ g: Double, _ b: Double) -> (UInt8, UInt8, UInt8) {
        let y = 0.299 * r + 0.587 * g + 0.114 * b
        let round = { (v: Double) in UInt8(max(0, min(255, v.rounded()))) }
        return (round(y), round((b - y) / 1.772 + 128), round((r - y) / 1.402 + 128))
    }

    static let colours: [(Double, Double, Double)] = [(200, 40, 90), (30, 160, 220), (240, 230, 40), (90, 90, 90)]

    /// A 512x384 picture of four flat quarters, drawn into the encoder's planes.
    static func encodedQuarters(_ still: HEIFEncoder.Still) throws -> [UInt8] {
        try HEIFEncoder.encodeYCbCr420(still, width: 512, height: 384) { p in
            #expect(p.matrix == .bt601 && p.fullRange)
            for y in 0..<p.height {
                for x in 0..<p.width {
                    let (l, cb, cr) = Self.ycbcr(Self.colours[(y / 192) * 2 + x / 256].0, Self.colours[(y / 192) * 2 + x / 256].1, Self.colours[(y / 192) * 2 + x / 256].2)
                    p.luma[y * p.lumaStride + x] = l
                    if x % 2 == 0 && y % 2 == 0 { (p.cb[y / 2 * p.chromaStride + x / 2], p.cr[y / 2 * p.chromaStride + x / 2]) = (cb, cr) }
                }
            }
        }
    }

    @Test func aPictureDrawnAsYCbCrDecodesToItsColoursAndSaysItsMatrix() throws {
        var still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        still.quality = 90
        still.orientation = .rotate90CW
        let file = try HEIFFile(bytes: try Self.encodedQuarters(still))
        let image = try file.primaryImage()
        #expect(image.orientation == .rotate90CW)
        let stored = try image.decodeStoredRGB()
        #expect((stored.width, stored.height) == (512, 384))
        for (i, colour) in Self.colours.enumerated() {
            let (x, y) = (i % 2 * 256 + 128, i / 2 * 192 + 96)
            let got = (0..<3).map { Double(stored.components[(y * 512 + x) * 3 + $0]) }
            let want = [colour.0, colour.1, colour.2]
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 3 }, "quarter \(i): \(got), drawn as \(want)")
        }
        // Read back as coded: the same matrix and range, said by the file.
        let said = try #require(try image.withStoredYCbCr420 { ($0.matrix, $0.fullRange) })
        #expect(said.0 == .bt601 && said.1)
    }

    @Test func aYCbCrPictureKeepsItsByteBudget() throws {
        var still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        still.quality = 100
        let unbounded = try HEIFEncoder.codedBytes(of: try Self.encodedQuarters(still))
        still.maximumCodedBytes = unbounded / 3
        let bounded = try HEIFEncoder.codedBytes(of: try Self.encodedQuarters(still))
        #expect(bounded <= unbounded / 3, "\(bounded) bytes for a budget of \(unbounded / 3)")
    }

    @Test func oddSidesAreNotDrawnAsYCbCr() {
        let still = HEIFEncoder.Still(pixels: PixelBuffer(width: 0, height: 0, channels: 3))
        #expect(throws: HEIFError.self) { try HEIFEncoder.encodeYCbCr420(still, width: 511, height: 384) { _ in } }
    }
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct RealHEIFYCbCrTests {
    /// Halved from its coded planes through the matrix the file declares, a photo is what
    /// libheif's own RGB makes of it averaged 2x2: a wrong matrix or range would shift
    /// whole channels.
    @Test(arguments: ["apple-live-photo/IMG_3582.HEIC", "apple-misc/iphone_15_pro.heic", "android-depth-motion/motion_photo.heic"])
    func halvedPlanesAreLibheifsRGBAveraged(name: String) throws {
        let image = try HEIFFile(path: Media.path(name)).primaryImage()
        guard let halved = try image.withStoredYCbCr420({ PixelBuffer<UInt8>.halvedRGB($0) }) else {
            Issue.record("\(name) was not read as 8-bit 4:2:0 planes")
            return
        }
        let halves = try #require(halved)
        let rgb = try image.decodeStoredRGB()
        #expect((halves.width, halves.height) == (rgb.width / 2, rgb.height / 2))
        var total = 0.0
        var bias = [0.0, 0.0, 0.0]
        for y in 0..<halves.height {
            for x in 0..<halves.width {
                for c in 0..<3 {
                    let four = [(0, 0), (1, 0), (0, 1), (1, 1)].map { Double(rgb.components[((2 * y + $0.1) * rgb.width + 2 * x + $0.0) * 3 + c]) }
                    let d = Double(halves.components[(y * halves.width + x) * 3 + c]) - four.reduce(0, +) / 4
                    total += abs(d)
                    bias[c] += d
                }
            }
        }
        let n = Double(halves.width * halves.height)
        let mean = total / (n * 3)
        bias = bias.map { $0 / n }
        #expect(mean < 2 && bias.allSatisfy { abs($0) < 1 }, "\(name): mean difference \(mean), bias per channel \(bias)")
    }
}

extension RealHEIFYCbCrTests {
    /// Converted from its coded planes at full size, a photo is libheif's own RGB of it
    /// within rounding (a wrong matrix or range shifts channels; chroma interpolated rather
    /// than taken for its 2x2 block, as libheif 1.19 does, moves a percent of a Pixel photo's
    /// samples by more than 3 levels), and any rectangle of it, odd corners included, is the
    /// same pixels as the whole: a HEIC coded whole can be drawn from its planes a tile at a time.
    @Test(arguments: ["apple-live-photo/IMG_3582.HEIC", "android-depth-motion/motion_photo.heic"])
    func planesConvertedByRegionsAreLibheifsRGB(name: String) throws {
        let image = try HEIFFile(path: Media.path(name)).primaryImage()
        let rgb = try image.decodeStoredRGB()
        let (whole, part) = try #require(
            try image.withStoredYCbCr420 { planes in
                (PixelBuffer<UInt8>.rgb(planes, x: 0, y: 0, width: planes.width, height: planes.height),
                 PixelBuffer<UInt8>.rgb(planes, x: 37, y: 11, width: 301, height: 203))
            }, "\(name) was not read as 8-bit 4:2:0 planes")
        #expect((whole.width, whole.height) == (rgb.width, rgb.height))
        var total = 0.0, far = 0
        for i in 0..<whole.components.count {
            let d = abs(Double(whole.components[i]) - Double(rgb.components[i]))
            total += d
            if d > 1 { far += 1 }
        }
        let mean = total / Double(whole.components.count)
        #expect(mean < 0.05 && far == 0, "\(name): mean difference \(mean), \(far) samples more than a level apart")
        #expect(part.components == whole.rectangle(x: 37, y: 11, width: 301, height: 203).components)
    }
}
