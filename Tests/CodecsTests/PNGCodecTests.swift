import CPNGCodec
import Foundation
import Testing
import TestSupport

@testable import Codecs
@testable import Containers
@testable import Imaging

/// The 16-bit samples of a 16-bit PNG as stored (libpng's decoding, without the sBIT shift).
func rawSixteenBitSamples(_ png: [UInt8]) throws -> [UInt16] {
    var decoded = cpng_decoded()
    var error = cpng_error()
    #expect(png.withUnsafeBytes { cpng_decode($0.baseAddress, $0.count, 1 << 28, 0, &decoded, &error) } == 1)
    defer { free(decoded.pixels) }
    let count = Int(decoded.width * decoded.height) * Int(decoded.channels)
    return decoded.pixels.withMemoryRebound(to: UInt16.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
}

struct PNGCodecTests {
    @Test func tenAndTwelveBitSamplesAreStoredAtFullRangeAndReadBackExactly() throws {
        for bits in [10, 12] {
            let top = UInt16((1 << bits) - 1)
            let values: [UInt16] = [0, 1, 2, top / 2, top - 1, top]
            let png = try PNGCodec.encode(.sixteen(PixelBuffer(width: values.count, height: 1, channels: 1, components: values), significantBits: bits))
            #expect(PNGFile.significantBits(png) == bits)
            let raw = try rawSixteenBitSamples(png)
            // Full range: black stays 0, the top value is 65535, and the sample is the top bits.
            #expect(raw.first == 0 && raw.last == 65535, "\(bits) bits: \(raw)")
            #expect(raw.map { $0 >> (16 - bits) } == values)
            #expect(zip(raw, raw.dropFirst()).allSatisfy { $0 < $1 })
            let (back, _) = try PNGCodec.decodeSamples(png)
            #expect(back == .sixteen(PixelBuffer(width: values.count, height: 1, channels: 1, components: values), significantBits: bits))
        }
        #expect(SampleScale.toSixteen(1023, bits: 10) == 65535 && SampleScale.toSixteen(512, bits: 10) == 32800)
        #expect(SampleScale.toSixteen(15, bits: 4) == 65535 && SampleScale.toSixteen(0b1010, bits: 4) == 0xAAAA)
    }

    @Test func anUnscaledPNGWithSBITIsReadAsItIs() throws {
        // What camlib wrote before it scaled, and what some tools write: sBIT 10 over
        // samples that fit in 10 bits. Shifting them would make them black.
        let values: [UInt16] = [0, 100, 1023]
        var out = cpng_buffer()
        var error = cpng_error()
        let ok = values.withUnsafeBytes { cpng_encode($0.baseAddress, 3, 1, 1, 16, 10, nil, 0, 6, 0, &out, &error) }
        #expect(ok == 1)
        defer { free(out.data) }
        let png = Array(UnsafeBufferPointer(start: out.data, count: out.size))
        #expect(PNGFile.significantBits(png) == 10)
        let (back, _) = try PNGCodec.decodeSamples(png)
        #expect(back == .sixteen(PixelBuffer(width: 3, height: 1, channels: 1, components: values), significantBits: 10))
    }

    @Test func sixteenBitSamplesWithoutAGammaChunkAreReadAtEightBitsAsSRGB() throws {
        // libpng's simplified API takes 16-bit samples without gAMA or sRGB for linear
        // light (a quarter, 16384, would come out as 136); browsers, the edits and every
        // tool camlib writes for take them as sRGB, as 8-bit samples are.
        let values: [UInt16] = [0, 16384, 32768, 65535]
        let png = try PNGCodec.encode(.sixteen(PixelBuffer(width: 4, height: 1, channels: 1, components: values), significantBits: 16))
        #expect(try PNGCodec.decodeRGB(png).components == [0, 0, 0, 64, 64, 64, 128, 128, 128, 255, 255, 255])
        let rgba = try PNGCodec.encode(.sixteen(PixelBuffer(width: 2, height: 1, channels: 4, components: [16384, 32768, 65535, 65535, 0, 0, 0, 0]), significantBits: 16))
        let kept = try PNGCodec.decodeRGBKeepingAlpha(rgba)
        #expect(kept.rgb.components.prefix(3) == [64, 128, 255] && kept.alpha == [255, 0])
        // A gAMA chunk still rules: 1.0 says the samples are linear, made sRGB on reading.
        let ihdr = try #require(try PNGChunks(parsing: png).chunks.first { $0.type == "IHDR" })
        let linear = Array(png[..<ihdr.range.upperBound]) + PNGCodec.chunk(type: "gAMA", data: [0, 1, 0x86, 0xA0]) + png[ihdr.range.upperBound...]
        #expect(try PNGCodec.decodeRGB(linear).components[3] == 136)
    }

    @Test func aPNGScaledFromBandsOfRowsIsTheWholeDecodeScaled() throws {
        // 301x517: bands of 128 rows end unevenly, and the scale is not a whole number.
        let (w, h) = (301, 517)
        func picture<T: FixedWidthInteger & PixelComponent>(channels: Int, as: T.Type) -> PixelBuffer<T> {
            // Gradients under noise: an average that is off by a row or a column shows.
            let noise = Self.noise(width: w, height: h, channels: channels, as: T.self)
            return PixelBuffer(width: w, height: h, channels: channels) { out in
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<channels {
                            let i = (y * w + x) * channels + c
                            let ramp = Double(c % 2 == 0 ? x : y) / Double(c % 2 == 0 ? w : h)
                            let alpha = channels % 2 == 0 && c == channels - 1
                            let value = alpha ? (x < w / 3 ? 1 : x < 2 * w / 3 ? 0.5 : 0) : 0.8 * ramp + 0.2 * Double(noise.components[i]) / Double(T.max)
                            out[i] = T((value * Double(T.max)).rounded())
                        }
                    }
                }
            }
        }
        for (channels, sixteen, tolerance) in [(3, false, 0), (1, false, 0), (3, true, 1), (1, true, 1), (4, false, 2), (2, true, 2), (4, true, 2)] {
            let png = try sixteen
                ? PNGCodec.encode(.sixteen(picture(channels: channels, as: UInt16.self), significantBits: 16))
                : PNGCodec.encode(.eight(picture(channels: channels, as: UInt8.self)))
            for maxSide in [64, 200, 1000] {
                let whole = try PixelScaler.scaledToFit(PNGCodec.decodeRGB(png), maxSide: maxSide)
                let banded = try PNGCodec.decodeScaled(png, maxSide: maxSide, bandedAbove: 0)
                #expect(banded.width == whole.width && banded.height == whole.height && banded.channels == 3)
                let worst = zip(banded.components, whole.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= tolerance, "\(channels) channels, \(sixteen ? 16 : 8) bits, fit in \(maxSide): off by \(worst)")
            }
            // Below the size, the whole decode itself.
            #expect(try PNGCodec.decodeScaled(png, maxSide: 64) == PixelScaler.scaledToFit(PNGCodec.decodeRGB(png), maxSide: 64))
        }
        // A gAMA chunk corrects the samples as libpng's whole decode corrects them: linear
        // (1.0), 0.8, sRGB's own (0.45455, no correction) and an sRGB chunk.
        let colourChunks: [(name: String, chunk: [UInt8])] = [
            ("gamma 1.0", PNGCodec.chunk(type: "gAMA", data: [0, 1, 0x86, 0xA0])), ("gamma 0.8", PNGCodec.chunk(type: "gAMA", data: [0, 1, 0x38, 0x80])),
            ("gamma 0.45455", PNGCodec.chunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F])), ("sRGB", PNGCodec.chunk(type: "sRGB", data: [0])),
        ]
        for (channels, sixteen, tolerance) in [(3, false, 0), (1, false, 0), (4, false, 2), (3, true, 1), (2, true, 2)] {
            let plain = try sixteen
                ? PNGCodec.encode(.sixteen(picture(channels: channels, as: UInt16.self), significantBits: 16))
                : PNGCodec.encode(.eight(picture(channels: channels, as: UInt8.self)))
            let ihdr = try #require(try PNGChunks(parsing: plain).chunks.first { $0.type == "IHDR" })
            for (name, chunk) in colourChunks {
                let png = Array(plain[..<ihdr.range.upperBound]) + chunk + plain[ihdr.range.upperBound...]
                let whole = try PixelScaler.scaledToFit(PNGCodec.decodeRGB(png), maxSide: 200)
                let banded = try PNGCodec.decodeScaled(png, maxSide: 200, bandedAbove: 0)
                let worst = zip(banded.components, whole.components).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= tolerance, "\(channels) channels, \(sixteen ? 16 : 8) bits, \(name): off by \(worst)")
                // The correction is there: linear samples read as sRGB are darker by far.
                if name == "gamma 1.0" {
                    let uncorrected = try PixelScaler.scaledToFit(PNGCodec.decodeRGB(plain), maxSide: 200)
                    let brighter = zip(uncorrected.components, banded.components).reduce(0) { $0 + Int($1.1) - Int($1.0) } / banded.components.count
                    #expect(brighter > 20, "\(channels) channels, \(sixteen ? 16 : 8) bits: \(brighter) levels brighter than uncorrected")
                }
            }
        }
        #expect(throws: PNGError.self) { try PNGCodec.decodeScaled(Array(repeating: 0, count: 40), maxSide: 64, bandedAbove: 0) }
        let truncated = try PNGCodec.encode(.eight(picture(channels: 3, as: UInt8.self)))
        #expect(throws: PNGError.self) { try PNGCodec.decodeScaled(Array(truncated.prefix(truncated.count / 2)), maxSide: 64, bandedAbove: 0) }
    }

    @Test func textsAreWrittenAsTEXtOrITXt() throws {
        let png = try PNGCodec.encode(
            .eight(PixelBuffer(width: 2, height: 2, channels: 1, components: [0, 1, 2, 3])),
            texts: [.init("Title", "depth from IMG_1.HEIC"), .init("camlib:aux", "{\"file\":\"Été.HEIC\"}")])
        let types = try PNGChunks(parsing: png).chunks.map(\.type)
        #expect(types.contains("tEXt") && types.contains("iTXt"))
        // Before the image data, where readers that stop early still see them.
        #expect(types.firstIndex(of: "tEXt")! < types.firstIndex(of: "IDAT")!)
        #expect(PNGFile.texts(png) == ["Title": "depth from IMG_1.HEIC", "camlib:aux": "{\"file\":\"Été.HEIC\"}"])
        #expect(throws: PNGError.self) { try PNGCodec.encode(.eight(PixelBuffer(width: 1, height: 1, channels: 1)), texts: [.init("", "x")]) }
    }

    /// A picture with every sample different from its neighbours'.
    static func noise<T: FixedWidthInteger & PixelComponent>(width: Int, height: Int, channels: Int, as: T.Type) -> PixelBuffer<T> {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return PixelBuffer(width: width, height: height, channels: channels) { out in
            for i in out.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                out[i] = T(truncatingIfNeeded: state >> 33)
            }
        }
    }

    @Test func rowsReadByBandsAreTheWholeDecodeAndRowsWrittenByBandsAreTheWholeEncode() throws {
        for (channels, sixteen) in [(1, true), (2, true), (3, true), (4, true), (3, false), (4, false)] {
            let (w, h) = (37, 61)
            let samples: ImageSamples =
                sixteen
                ? .sixteen(Self.noise(width: w, height: h, channels: channels, as: UInt16.self), significantBits: 16)
                : .eight(Self.noise(width: w, height: h, channels: channels, as: UInt8.self))
            let png = try PNGCodec.encode(samples, photographic: true)
            let whole = try PNGCodec.decodeSamples(png, keepingAlpha: true).samples
            let format = try PNGCodec.rowFormat(png)
            #expect(format == PNGCodec.RowFormat(width: w, height: h, channels: channels, bitDepth: sixteen ? 16 : 8, significantBits: sixteen ? 16 : 8))
            // Read in bands of 8 (the last shorter), rows 5..<50 of them, and written again.
            let rows = 5..<50
            let writer = try PNGRowWriter(width: w, height: rows.count, channels: channels, bitDepth: sixteen ? 16 : 8)
            var firstRows: [Int] = []
            func check<T: FixedWidthInteger & PixelComponent>(_ type: T.Type, _ expected: PixelBuffer<T>) throws {
                try PNGCodec.readRows(png, rows: rows, band: 8) { (_, band: PixelBuffer<T>, y) in
                    firstRows.append(y)
                    let start = y * w * channels
                    #expect(Array(band.components) == Array(expected.components[start..<(start + band.components.count)]), "\(channels) channels, rows from \(y)")
                    try writer.write(band)
                }
            }
            switch whole {
            case .sixteen(let p, _): try check(UInt16.self, p)
            case .eight(let p): try check(UInt8.self, p)
            }
            #expect(firstRows == Array(stride(from: 5, to: 50, by: 8)))
            let written = try writer.finish()
            let back = try PNGCodec.decodeSamples(written, keepingAlpha: true).samples
            switch (back, whole) {
            case (.sixteen(let a, 16), .sixteen(let b, _)):
                #expect(Array(a.components) == Array(b.components[(5 * w * channels)..<(50 * w * channels)]))
            case (.eight(let a), .eight(let b)):
                #expect(Array(a.components) == Array(b.components[(5 * w * channels)..<(50 * w * channels)]))
            default: Issue.record("the rows written back are not the depth read")
            }
        }
    }

    @Test func rowsThatCannotBeReadOrWrittenAreErrors() throws {
        let png = try PNGCodec.encode(.sixteen(Self.noise(width: 200, height: 200, channels: 3, as: UInt16.self), significantBits: 16), photographic: true)
        // The wrong depth asked for.
        #expect(throws: PNGError.self) { try PNGCodec.readRows(png, band: 4) { (_, _: PixelBuffer<UInt8>, _) in } }
        // Cut short in its image data: the bands before the cut are read, then an error.
        let cut = Array(png[..<(png.count / 2)])
        var bands = 0
        let error = #expect(throws: PNGError.self) { try PNGCodec.readRows(cut, band: 4) { (_, _: PixelBuffer<UInt16>, _) in bands += 1 } }
        #expect(bands > 10 && bands < 40, "\(bands) of 50 bands")
        #expect(error?.message.isEmpty == false)
        // An interlaced PNG gives its rows in passes: refused, with the reason.
        let one = try PNGCodec.encode(.eight(PixelBuffer(width: 1, height: 1, channels: 3, components: [1, 2, 3])))
        let header = try #require(try PNGChunks(parsing: one).chunks.first)
        var data = Array(one[(header.range.lowerBound + 8)..<(header.range.upperBound - 4)])
        data[12] = 1
        let interlaced = Array(one[..<header.range.lowerBound]) + PNGCodec.chunk(type: "IHDR", data: data) + Array(one[header.range.upperBound...])
        #expect(try PNGCodec.decodeSamples(interlaced).samples == .eight(PixelBuffer(width: 1, height: 1, channels: 3, components: [1, 2, 3])))
        let refusal = #expect(throws: PNGError.self) { try PNGCodec.readRows(interlaced, band: 4) { (_, _: PixelBuffer<UInt8>, _) in } }
        #expect(refusal?.message.contains("interlaced") == true)
        // Scaled, it is decoded whole.
        #expect(try PNGCodec.decodeScaled(interlaced, maxSide: 64, bandedAbove: 0).components == [1, 2, 3])
        // Rows of the wrong shape, too many rows, an unfinished file.
        let writer = try PNGRowWriter(width: 10, height: 2, channels: 3, bitDepth: 16)
        #expect(throws: PNGError.self) { try writer.write(PixelBuffer<UInt16>(width: 9, height: 1, channels: 3)) }
        #expect(throws: PNGError.self) { try writer.write(PixelBuffer<UInt8>(width: 10, height: 1, channels: 3)) }
        try writer.write(PixelBuffer<UInt16>(width: 10, height: 1, channels: 3))
        #expect(throws: PNGError.self) { try writer.finish() }
        #expect(throws: PNGError.self) { try writer.write(PixelBuffer<UInt16>(width: 10, height: 2, channels: 3)) }
        try writer.write(PixelBuffer<UInt16>(width: 10, height: 1, channels: 3))
        let file = try writer.finish()
        #expect(try PNGCodec.decodeSamples(file).samples == .sixteen(PixelBuffer(width: 10, height: 2, channels: 3), significantBits: 16))
        #expect(throws: PNGError.self) { try writer.finish() }
    }
}
