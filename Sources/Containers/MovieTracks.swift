/// The tracks of a QuickTime/MP4 movie and where each one's samples are: read from
/// `moov/trak/mdia/minf/stbl` (`stsd`, `stts`, `stss`, `stsc`, `stsz`, `stco`/`co64`).
/// The base for rewriting one track of a movie while every other track (audio, Apple's
/// timed metadata) keeps its bytes.
public struct MovieTracks: Sendable {
    public struct Track: Sendable {
        public var id: UInt32
        /// `vide`, `soun`, `meta`, …
        public var handler: String
        public var timescale: UInt32
        /// The `trak` box in the file it was read from.
        public var box: ISOBox
        /// The sample description box (`stsd`), whole.
        public var sampleDescription: [UInt8]
        /// Every sample: where it is and how long it lasts (in `timescale` units).
        public var samples: [Sample]
        /// Chunks: runs of consecutive samples stored together.
        public var chunks: [Chunk]
    }

    public struct Sample: Sendable, Equatable {
        public var offset: Int
        public var size: Int
        public var duration: UInt32
        public var isSync: Bool
        /// Presentation minus decoding time, from `ctts` (0 without one).
        public var compositionOffset: Int32 = 0
    }

    public struct Chunk: Sendable, Equatable {
        public var offset: Int
        public var size: Int
    }

    public let moov: ISOBox
    public let tracks: [Track]

    /// `bytes`: the whole file; or only its `moov` box, with the whole file's size as
    /// `fileSize` (sample offsets then point into a file that is not in `bytes`).
    public init(file bytes: [UInt8], fileSize: Int? = nil) throws {
        let top = ISOBox.sequence(in: bytes, from: 0, limit: bytes.count)
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw FormatError("movie", "no moov box") }
        self.moov = moov
        var tracks: [Track] = []
        for trak in moov.children(in: bytes) where trak.type == "trak" {
            tracks.append(try Self.readTrack(trak, in: bytes, fileSize: fileSize ?? bytes.count))
        }
        self.tracks = tracks
    }

    /// The id in a `trak`'s `tkhd`.
    static func trackID(of trak: ISOBox, in bytes: [UInt8]) throws -> UInt32 {
        let tkhd = try child(trak, "tkhd", in: bytes)
        let version = try ByteReader(bytes, context: "tkhd").u8(at: tkhd.payload.lowerBound)
        return try ByteReader(bytes, context: "tkhd").u32(at: tkhd.payload.lowerBound + (version == 1 ? 20 : 12))
    }

    static func child(_ box: ISOBox, _ type: String, in bytes: [UInt8], skip: Int = 0) throws -> ISOBox {
        guard let c = box.children(in: bytes, skip: skip).first(where: { $0.type == type }) else {
            throw FormatError("movie", "\(box.type) has no \(type) box")
        }
        return c
    }

    static func readTrack(_ trak: ISOBox, in bytes: [UInt8], fileSize: Int) throws -> Track {
        let r = ByteReader(bytes, context: "movie track")
        let tkhd = try child(trak, "tkhd", in: bytes)
        let tkhdVersion = try r.u8(at: tkhd.payload.lowerBound)
        let id = try r.u32(at: tkhd.payload.lowerBound + (tkhdVersion == 1 ? 20 : 12))
        let mdia = try child(trak, "mdia", in: bytes)
        let mdhd = try child(mdia, "mdhd", in: bytes)
        let mdhdVersion = try r.u8(at: mdhd.payload.lowerBound)
        let timescale = try r.u32(at: mdhd.payload.lowerBound + (mdhdVersion == 1 ? 20 : 12))
        let hdlr = try child(mdia, "hdlr", in: bytes)
        let handler = try r.fourCC(at: hdlr.payload.lowerBound + 8)
        let stbl = try child(try child(mdia, "minf", in: bytes), "stbl", in: bytes)
        let boxes = stbl.children(in: bytes)
        func find(_ type: String) -> ISOBox? { boxes.first { $0.type == type } }
        // Every table's entry count, bounded by what its box holds: a count read from the
        // file never drives a loop past its box (a ctts declaring millions of entries
        // spun an edit forever). The entries there are read, as FFmpeg does.
        func entries(_ box: ISOBox, size: Int, countAt: Int = 4) throws -> Int {
            let count = Int(try r.u32(at: box.payload.lowerBound + countAt))
            return max(0, min(count, (box.payload.count - countAt - 4) / size))
        }
        guard let stsd = find("stsd"), let stts = find("stts"), let stsc = find("stsc") else {
            throw FormatError("movie", "track \(id) lacks its sample tables")
        }
        // Sizes.
        var sizes: [Int] = []
        if let stsz = find("stsz") {
            let p = stsz.payload.lowerBound + 4
            let fixed = Int(try r.u32(at: p)), count = Int(try r.u32(at: p + 4))
            guard count < 1 << 24 else { throw FormatError("movie", "track \(id) claims \(count) samples") }
            sizes = fixed != 0
                ? Array(repeating: fixed, count: count) : try (0..<min(count, try entries(stsz, size: 4, countAt: 8))).map { Int(try r.u32(at: p + 8 + $0 * 4)) }
        } else {
            throw FormatError("movie", "track \(id) has no stsz box (compact sizes are not supported)")
        }
        // Durations.
        var durations: [UInt32] = []
        do {
            let p = stts.payload.lowerBound + 4
            for e in 0..<(try entries(stts, size: 8)) {
                let count = Int(try r.u32(at: p + 4 + e * 8)), delta = try r.u32(at: p + 8 + e * 8)
                guard durations.count + count <= sizes.count else { break }
                durations += Array(repeating: delta, count: count)
            }
        }
        // Composition offsets (B-frames).
        var composition = Array(repeating: Int32(0), count: sizes.count)
        if let ctts = find("ctts") {
            let p = ctts.payload.lowerBound + 4
            var i = 0
            for e in 0..<(try entries(ctts, size: 8)) where i < composition.count {
                let count = Int(try r.u32(at: p + 4 + e * 8)), value = Int32(bitPattern: try r.u32(at: p + 8 + e * 8))
                let end = min(composition.count, i + count)
                composition.replaceSubrange(i..<end, with: repeatElement(value, count: end - i))
                i = end
            }
        }
        // Sync samples: all when there is no stss.
        var sync = Array(repeating: find("stss") == nil, count: sizes.count)
        if let stss = find("stss") {
            let p = stss.payload.lowerBound + 4
            for e in 0..<(try entries(stss, size: 4)) {
                let n = Int(try r.u32(at: p + 4 + e * 4))
                if n >= 1 && n <= sync.count { sync[n - 1] = true }
            }
        }
        // Chunk offsets.
        var chunkOffsets: [Int] = []
        if let stco = find("stco") {
            let p = stco.payload.lowerBound + 4
            chunkOffsets = try (0..<(try entries(stco, size: 4))).map { Int(try r.u32(at: p + 4 + $0 * 4)) }
        } else if let co64 = find("co64") {
            let p = co64.payload.lowerBound + 4
            chunkOffsets = try (0..<(try entries(co64, size: 8))).map { Int(try r.u64(at: p + 4 + $0 * 8)) }
        } else {
            throw FormatError("movie", "track \(id) has no chunk offsets")
        }
        // Samples per chunk (stsc runs), then each sample's offset.
        let p = stsc.payload.lowerBound + 4
        let runs = try (0..<(try entries(stsc, size: 12))).map { e in
            (first: Int(try r.u32(at: p + 4 + e * 12)), perChunk: Int(try r.u32(at: p + 8 + e * 12)))
        }
        var samples: [Sample] = []
        var chunks: [Chunk] = []
        var next = 0
        var run = -1  // the stsc run that covers the current chunk (runs are in chunk order)
        for (c, chunkOffset) in chunkOffsets.enumerated() {
            while run + 1 < runs.count && runs[run + 1].first <= c + 1 { run += 1 }
            let count = run >= 0 ? runs[run].perChunk : 0
            guard count <= sizes.count else { throw FormatError("movie", "track \(id): a chunk claims \(count) samples") }
            var offset = chunkOffset
            for _ in 0..<count where next < sizes.count {
                samples.append(
                    Sample(
                        offset: offset, size: sizes[next], duration: next < durations.count ? durations[next] : 0, isSync: sync[next],
                        compositionOffset: composition[next]))
                offset += sizes[next]
                next += 1
            }
            chunks.append(Chunk(offset: chunkOffset, size: offset - chunkOffset))
        }
        guard next == sizes.count else { throw FormatError("movie", "track \(id): the chunk table covers \(next) of \(sizes.count) samples") }
        for s in samples where s.offset < 0 || s.offset + s.size > fileSize {
            throw FormatError("movie", "track \(id) has a sample past the end of the file")
        }
        return Track(
            id: id, handler: handler, timescale: timescale, box: trak, sampleDescription: Array(bytes[stsd.offset..<stsd.end]),
            samples: samples, chunks: chunks)
    }
}

extension MovieTracks.Track {
    /// Bits per second over the track's samples; nil for an empty or timeless track.
    public var bitRate: Int? {
        let ticks = samples.reduce(0) { $0 + Int($1.duration) }
        guard ticks > 0, timescale > 0 else { return nil }
        let bytes = samples.reduce(0) { $0 + $1.size }
        return Int((Double(bytes) * 8 * Double(timescale) / Double(ticks)).rounded())
    }
}
