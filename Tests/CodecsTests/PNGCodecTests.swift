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
}
