import Containers
import Testing

@testable import Codecs
@testable import Imaging

/// How a render's still is coded by x265: at ultrafast's block splits, and to the same
/// file whatever x265 coded before it in the process (renders are named by their bytes,
/// so an edit made again finds the file it made before; libheif and FFmpeg load the same
/// libx265, which keeps some state for the whole process).
struct HEIFEncoderTests {
    /// A picture with detail everywhere, so that x265 has blocks to split.
    static func pattern(width: Int, height: Int, seed: Int = 0) -> PixelBuffer<UInt8> {
        var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                (p.components[i], p.components[i + 1], p.components[i + 2]) =
                    (UInt8((x * 7 + y * 3 + seed) & 255), UInt8((x * y + seed) & 255), UInt8(((x ^ y) * 5) & 255))
            }
        }
        return p
    }

    @Test func aStillIsCodedTheSameBeforeDuringAndAfterAMovie() throws {
        var still = HEIFEncoder.Still(pixels: Self.pattern(width: 1000, height: 700))
        still.thumbnailSide = 320
        let before = try HEIFEncoder.encodeRGB(still)
        // A movie at the render's settings (as a Live Photo's edit codes it beside its still).
        let movie = try VideoEncoder(settings: MovieWriter.Settings(codec: .hevc, width: 640, height: 480))
        for frame in 0..<8 { _ = try movie.encode(Self.pattern(width: 640, height: 480, seed: frame * 9), pts: Int64(frame)) }
        let during = try HEIFEncoder.encodeRGB(still)
        _ = try movie.finish()
        let after = try HEIFEncoder.encodeRGB(still)
        // Compared as a whole: the bytes printed would run to hundreds of thousands.
        let (sameDuring, sameAfter) = (during == before, after == before)
        #expect(sameDuring, "coded beside a movie: \(during.count) bytes, alone \(before.count)")
        #expect(sameAfter, "coded after a movie: \(after.count) bytes, before it \(before.count)")
    }

    /// The blocks each coded picture of a HEIF file allows (its hvcC's SPS): the primary
    /// item, then its thumbnails.
    static func blocks(_ file: [UInt8]) throws -> [HEVCSequence.Blocks] {
        let meta = try HEIFMetaBox(file: file)
        let primary = meta.primaryItemID
        let thumbnails = meta.references.filter { $0.type == "thmb" && $0.to.contains(primary) }.map(\.from)
        return try ([primary] + thumbnails).map { item in
            try HEVCSequence.blocks(hvcC: try #require(meta.properties(of: item).first { $0.type == "hvcC" }).box)
        }
    }

    /// x265's ultrafast splits an intra block's transform once at most; libheif raises
    /// that to twice for its own presets, which a render's still and its auxiliary images
    /// set back. Coding blocks stay at ultrafast's 16 pixels, as the movies' are.
    @Test func aRendersStillAndItsAuxiliaryImagesAreCodedAtUltrafastsBlocks() throws {
        var still = HEIFEncoder.Still(pixels: Self.pattern(width: 640, height: 480))
        still.thumbnailSide = 160
        let ultrafast = HEVCSequence.Blocks(smallestCodingBlock: 16, intraTransformDepth: 0)
        #expect(try Self.blocks(try HEIFEncoder.encodeRGB(still)) == [ultrafast, ultrafast])
        var gray = PixelBuffer<UInt8>(width: 320, height: 240, channels: 1)
        for i in gray.components.indices { gray.components[i] = UInt8((i * 37) & 255) }
        let aux = try HEIFEncoder.encodeMonochrome(.eight(gray), lossless: false, quality: 60, preset: "ultrafast")
        #expect(try Self.blocks(aux) == [ultrafast])
    }
}

/// Just enough of an HEVC sequence parameter set (ITU-T H.265 7.3.2.2) to find how its
/// blocks were allowed to split.
enum HEVCSequence {
    struct Malformed: Error {}

    /// What an SPS allows: the smallest luma coding block, in pixels, and how many times
    /// an intra block's transform may split (max_transform_hierarchy_depth_intra).
    struct Blocks: Equatable {
        var smallestCodingBlock: Int
        var intraTransformDepth: Int
    }

    /// The blocks of the SPS in an hvcC box (its 8-byte header first).
    static func blocks(hvcC box: [UInt8]) throws -> Blocks {
        // HEVCDecoderConfigurationRecord: 22 bytes, then arrays of NAL units by type.
        var at = 8 + 22
        guard box.count > at else { throw Malformed() }
        let arrays = Int(box[at])
        at += 1
        for _ in 0..<arrays {
            guard box.count >= at + 3 else { throw Malformed() }
            let type = box[at] & 0x3F, count = Int(box[at + 1]) << 8 | Int(box[at + 2])
            at += 3
            for _ in 0..<count {
                guard box.count >= at + 2 else { throw Malformed() }
                let length = Int(box[at]) << 8 | Int(box[at + 1])
                guard box.count >= at + 2 + length else { throw Malformed() }
                if type == 33 { return try blocks(sps: Array(box[(at + 2)..<(at + 2 + length)])) }
                at += 2 + length
            }
        }
        throw Malformed()
    }

    /// The blocks of an SPS NAL unit (its 2-byte header first).
    static func blocks(sps nal: [UInt8]) throws -> Blocks {
        // The payload without its emulation prevention bytes (00 00 03).
        var rbsp: [UInt8] = []
        var zeros = 0
        for byte in nal.dropFirst(2) {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        var bits = BitReader(bytes: rbsp)
        _ = try bits.read(4)  // sps_video_parameter_set_id
        let subLayers = try bits.read(3)  // sps_max_sub_layers_minus1
        _ = try bits.read(1)  // sps_temporal_id_nesting_flag
        // profile_tier_level(1, subLayers): 88 bits of general profile, 8 of level.
        _ = try bits.read(88)
        _ = try bits.read(8)
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            profilePresent.append(try bits.read(1) == 1)
            levelPresent.append(try bits.read(1) == 1)
        }
        if subLayers > 0 { for _ in subLayers..<8 { _ = try bits.read(2) } }
        for i in 0..<subLayers {
            if profilePresent[i] { _ = try bits.read(88) }
            if levelPresent[i] { _ = try bits.read(8) }
        }
        _ = try bits.exponentialGolomb()  // sps_seq_parameter_set_id
        let chroma = try bits.exponentialGolomb()
        if chroma == 3 { _ = try bits.read(1) }  // separate_colour_plane_flag
        _ = try bits.exponentialGolomb()  // pic_width_in_luma_samples
        _ = try bits.exponentialGolomb()  // pic_height_in_luma_samples
        if try bits.read(1) == 1 { for _ in 0..<4 { _ = try bits.exponentialGolomb() } }  // conformance window
        _ = try bits.exponentialGolomb()  // bit_depth_luma_minus8
        _ = try bits.exponentialGolomb()  // bit_depth_chroma_minus8
        _ = try bits.exponentialGolomb()  // log2_max_pic_order_cnt_lsb_minus4
        let allSubLayers = try bits.read(1) == 1
        for _ in (allSubLayers ? 0 : subLayers)...subLayers { for _ in 0..<3 { _ = try bits.exponentialGolomb() } }
        let smallest = 1 << (try bits.exponentialGolomb() + 3)  // log2_min_luma_coding_block_size_minus3
        _ = try bits.exponentialGolomb()  // log2_diff_max_min_luma_coding_block_size
        _ = try bits.exponentialGolomb()  // log2_min_luma_transform_block_size_minus2
        _ = try bits.exponentialGolomb()  // log2_diff_max_min_luma_transform_block_size
        _ = try bits.exponentialGolomb()  // max_transform_hierarchy_depth_inter
        return Blocks(smallestCodingBlock: smallest, intraTransformDepth: try bits.exponentialGolomb())
    }

    struct BitReader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// The next `count` bits (at most 64) as a number, most significant first.
        mutating func read(_ count: Int) throws -> Int {
            var value = 0
            for _ in 0..<count {
                guard position / 8 < bytes.count else { throw Malformed() }
                value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
                position += 1
            }
            return value
        }

        /// An unsigned Exp-Golomb number, ue(v).
        mutating func exponentialGolomb() throws -> Int {
            var zeros = 0
            while try read(1) == 0 {
                zeros += 1
                guard zeros < 32 else { throw Malformed() }
            }
            return (1 << zeros) - 1 + (try read(zeros))
        }
    }
}
