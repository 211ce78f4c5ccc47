/// Writes a movie again with one track's samples replaced (a re-encoded video) and every
/// other track (audio, Apple's timed metadata: still-image-time, …), every QuickTime key
/// and every other box of `moov` kept as they were. The new file holds one `mdat` with
/// all samples, followed by `moov`.
///
/// `layout` plans the new file from the original's `moov` alone, as byte ranges to copy,
/// so a caller can stream a movie of any size from file to file; `replacingTrack` does it
/// in memory for small movies.
public enum MovieRewriter {
    /// A replacement sample: where its bytes are in the replacement data, and its timing.
    public struct SampleLocation: Sendable {
        public var offset: Int
        public var size: Int
        public var duration: UInt32
        public var isSync: Bool
        public var compositionOffset: Int32

        public init(offset: Int, size: Int, duration: UInt32, isSync: Bool, compositionOffset: Int32 = 0) {
            (self.offset, self.size, self.duration, self.isSync, self.compositionOffset) = (offset, size, duration, isSync, compositionOffset)
        }
    }

    /// The new file: `head` (the original's top-level boxes before its media, and the new
    /// `mdat` header), then the `mdat` payload as `pieces` in order, then `moov`.
    public struct Layout: Sendable {
        public enum Piece: Sendable, Equatable {
            /// Bytes of the original file.
            case original(offset: Int, size: Int)
            /// Bytes of the replacement data.
            case replacement(offset: Int, size: Int)
        }
        public var head: [UInt8]
        public var pieces: [Piece]
        public var moov: [UInt8]
    }

    public struct NewSample: Sendable {
        public var data: [UInt8]
        public var duration: UInt32
        public var isSync: Bool
        /// Presentation minus decoding time (B-frames), in the track's timescale.
        public var compositionOffset: Int32

        public init(data: [UInt8], duration: UInt32, isSync: Bool, compositionOffset: Int32 = 0) {
            (self.data, self.duration, self.isSync, self.compositionOffset) = (data, duration, isSync, compositionOffset)
        }
    }

    /// `bytes` with track `trackID`'s sample description and samples replaced.
    /// `editListShift` moves the track's edit list media times (the new samples may start
    /// presenting at another media time than the old ones: B-frame delay).
    public static func replacingTrack(
        _ trackID: UInt32, in bytes: [UInt8], sampleDescription: [UInt8], samples: [NewSample], editListShift: Int64 = 0
    ) throws -> [UInt8] {
        var data: [UInt8] = []
        var locations: [SampleLocation] = []
        for s in samples {
            locations.append(.init(offset: data.count, size: s.data.count, duration: s.duration, isSync: s.isSync, compositionOffset: s.compositionOffset))
            data += s.data
        }
        let top = ISOBox.sequence(in: bytes, from: 0, limit: bytes.count)
        let plan = try layout(
            replacing: trackID, moov: bytes, fileSize: bytes.count, topLevel: top.map { ($0.type, Array(bytes[$0.offset..<$0.end])) },
            sampleDescription: sampleDescription, samples: locations, editListShift: editListShift)
        var out = plan.head
        for piece in plan.pieces {
            switch piece {
            case .original(let offset, let size): out += bytes[offset..<(offset + size)]
            case .replacement(let offset, let size): out += data[offset..<(offset + size)]
            }
        }
        return out + plan.moov
    }

    /// The plan of the new file. `moov`: the original's `moov` box (or the whole file);
    /// `fileSize`: the original's size; `topLevel`: its top-level boxes other than media
    /// and `moov` (ftyp, …) in order, whole (others are skipped by type).
    public static func layout(
        replacing trackID: UInt32, moov bytes: [UInt8], fileSize: Int, topLevel: [(type: String, box: [UInt8])],
        sampleDescription: [UInt8], samples: [SampleLocation], editListShift: Int64 = 0, frameSize: (width: Int, height: Int)? = nil
    ) throws -> Layout {
        let movie = try MovieTracks(file: bytes, fileSize: fileSize)
        guard movie.tracks.contains(where: { $0.id == trackID }) else { throw FormatError("movie", "no track \(trackID)") }
        // The new mdat: other tracks' chunks copied as they are, the new samples as one chunk.
        let payloadSize = movie.tracks.reduce(0) { total, track in
            total + (track.id == trackID ? samples.reduce(0) { $0 + $1.size } : track.chunks.reduce(0) { $0 + $1.size })
        }
        var head: [UInt8] = []
        for (type, box) in topLevel where !["mdat", "moov", "free", "skip", "wide"].contains(type) { head += box }
        let mdatHeader = payloadSize + 8 <= Int(UInt32.max) ? 8 : 16
        var position = head.count + mdatHeader
        var pieces: [Layout.Piece] = []
        var chunkOffsets: [UInt32: [Int]] = [:]
        for track in movie.tracks {
            if track.id == trackID {
                chunkOffsets[track.id] = [position]
                for s in samples { pieces.append(.replacement(offset: s.offset, size: s.size)) }
                position += samples.reduce(0) { $0 + $1.size }
            } else {
                var offsets: [Int] = []
                for chunk in track.chunks {
                    offsets.append(position)
                    pieces.append(.original(offset: chunk.offset, size: chunk.size))
                    position += chunk.size
                }
                chunkOffsets[track.id] = offsets
            }
        }
        if mdatHeader == 8 {
            head += [UInt8(truncatingIfNeeded: (payloadSize + 8) >> 24), UInt8(truncatingIfNeeded: (payloadSize + 8) >> 16),
                UInt8(truncatingIfNeeded: (payloadSize + 8) >> 8), UInt8(truncatingIfNeeded: payloadSize + 8)] + Array("mdat".utf8)
        } else {
            let size = UInt64(payloadSize + 16)
            head += [0, 0, 0, 1] + Array("mdat".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: size >> (56 - 8 * UInt64($0))) }
        }
        // moov, with each trak's sample tables rebuilt.
        var moov = ISOBoxWriter()
        moov.box("moov") { m in
            for child in movie.moov.children(in: bytes) {
                guard child.type == "trak", let track = movie.tracks.first(where: { $0.box.offset == child.offset }) else {
                    m.raw(bytes[child.offset..<child.end])
                    continue
                }
                let offsets = chunkOffsets[track.id]!
                let trak = rebuild(child, in: bytes, path: ["mdia", "minf", "stbl"]) { stbl in
                    track.id == trackID
                        ? newSampleTable(sampleDescription: sampleDescription, samples: samples, chunkOffset: offsets[0])
                        : sampleTable(stbl, in: bytes, withChunkOffsets: offsets)
                }
                var rebuilt = trak
                if track.id == trackID, editListShift != 0, let box = ISOBox.header(in: trak, at: 0, limit: trak.count),
                    box.children(in: trak).contains(where: { $0.type == "edts" })
                {
                    rebuilt = rebuild(box, in: trak, path: ["edts", "elst"]) { elst in shifted(elst, in: trak, by: editListShift) }
                }
                if track.id == trackID, let size = frameSize { resize(&rebuilt, width: size.width, height: size.height) }
                m.raw(rebuilt)
            }
        }
        return Layout(head: head, pieces: pieces, moov: moov.bytes)
    }

    /// A `trak`'s presentation size made `width`×`height`: its `tkhd` and the `clef`,
    /// `prof` and `enof` of its `tapt` (QuickTime's apertures) each end with a width and
    /// height in 16.16 fixed point, written in place.
    static func resize(_ trak: inout [UInt8], width: Int, height: Int) {
        func write(_ box: ISOBox) {
            guard box.end - box.payload.lowerBound >= 8 else { return }
            for (k, v) in [(box.end - 8, width), (box.end - 4, height)] {
                let fixed = UInt32(clamping: v) << 16
                for i in 0..<4 { trak[k + i] = UInt8(truncatingIfNeeded: fixed >> (24 - 8 * UInt32(i))) }
            }
        }
        guard let box = ISOBox.header(in: trak, at: 0, limit: trak.count) else { return }
        for child in box.children(in: trak) {
            if child.type == "tkhd" { write(child) }
            if child.type == "tapt" { for aperture in child.children(in: trak) where ["clef", "prof", "enof"].contains(aperture.type) { write(aperture) } }
        }
    }

    /// A container box with the box at `path` below it replaced by `replace(thatBox)`.
    static func rebuild(_ box: ISOBox, in bytes: [UInt8], path: [String], replace: (ISOBox) -> [UInt8]) -> [UInt8] {
        var w = ISOBoxWriter()
        w.box(box.type) { b in
            for child in box.children(in: bytes) {
                if child.type == path.first {
                    b.raw(path.count == 1 ? replace(child) : rebuild(child, in: bytes, path: Array(path.dropFirst()), replace: replace))
                } else {
                    b.raw(bytes[child.offset..<child.end])
                }
            }
        }
        return w.bytes
    }

    /// An `elst` with every media time (except -1, an empty edit) moved by `shift`.
    static func shifted(_ elst: ISOBox, in bytes: [UInt8], by shift: Int64) -> [UInt8] {
        var out = Array(bytes[elst.offset..<elst.end])
        let base = elst.headerSize
        guard out.count >= base + 8 else { return out }
        let version = out[base]
        let count = Int(UInt32(out[base + 4]) << 24 | UInt32(out[base + 5]) << 16 | UInt32(out[base + 6]) << 8 | UInt32(out[base + 7]))
        let entrySize = version == 1 ? 20 : 12
        for i in 0..<count {
            let at = base + 8 + i * entrySize + (version == 1 ? 8 : 4)
            let width = version == 1 ? 8 : 4
            guard at + width <= out.count else { break }
            var value: Int64 = 0
            for k in 0..<width { value = value << 8 | Int64(out[at + k]) }
            if width == 4 { value = Int64(Int32(truncatingIfNeeded: value)) }
            guard value != -1 else { continue }
            let moved = max(0, value + shift)
            for k in 0..<width { out[at + k] = UInt8((moved >> Int64(8 * (width - 1 - k))) & 0xFF) }
        }
        return out
    }

    /// An existing `stbl` with its chunk offsets replaced (as `co64` when one needs it).
    static func sampleTable(_ stbl: ISOBox, in bytes: [UInt8], withChunkOffsets offsets: [Int]) -> [UInt8] {
        var w = ISOBoxWriter()
        w.box("stbl") { b in
            for child in stbl.children(in: bytes) {
                if child.type == "stco" || child.type == "co64" {
                    b.raw(chunkOffsetBox(offsets))
                } else {
                    b.raw(bytes[child.offset..<child.end])
                }
            }
        }
        return w.bytes
    }

    static func chunkOffsetBox(_ offsets: [Int]) -> [UInt8] {
        var w = ISOBoxWriter()
        if offsets.allSatisfy({ $0 <= Int(UInt32.max) }) {
            w.box("stco", version: 0) { b in
                b.u32(UInt32(offsets.count))
                for o in offsets { b.u32(UInt32(o)) }
            }
        } else {
            w.box("co64", version: 0) { b in
                b.u32(UInt32(offsets.count))
                for o in offsets { b.u64(UInt64(o)) }
            }
        }
        return w.bytes
    }

    /// A `stbl` for new samples stored as one chunk.
    static func newSampleTable(sampleDescription: [UInt8], samples: [SampleLocation], chunkOffset: Int) -> [UInt8] {
        var w = ISOBoxWriter()
        w.box("stbl") { b in
            b.raw(sampleDescription)
            // Durations, run-length coded.
            var runs: [(count: UInt32, delta: UInt32)] = []
            for s in samples {
                if let last = runs.last, last.delta == s.duration { runs[runs.count - 1].count += 1 } else { runs.append((1, s.duration)) }
            }
            b.box("stts", version: 0) { t in
                t.u32(UInt32(runs.count))
                for r in runs { t.u32(r.count); t.u32(r.delta) }
            }
            if samples.contains(where: { $0.compositionOffset != 0 }) {
                var offsets: [(count: UInt32, offset: Int32)] = []
                for s in samples {
                    if let last = offsets.last, last.offset == s.compositionOffset { offsets[offsets.count - 1].count += 1 } else { offsets.append((1, s.compositionOffset)) }
                }
                b.box("ctts", version: 1) { t in
                    t.u32(UInt32(offsets.count))
                    for o in offsets { t.u32(o.count); t.u32(UInt32(bitPattern: o.offset)) }
                }
            }
            if !samples.allSatisfy(\.isSync) {
                let sync = samples.indices.filter { samples[$0].isSync }
                b.box("stss", version: 0) { t in
                    t.u32(UInt32(sync.count))
                    for i in sync { t.u32(UInt32(i + 1)) }
                }
            }
            b.box("stsc", version: 0) { t in
                t.u32(1)
                t.u32(1)
                t.u32(UInt32(samples.count))
                t.u32(1)
            }
            b.box("stsz", version: 0) { t in
                t.u32(0)
                t.u32(UInt32(samples.count))
                for s in samples { t.u32(UInt32(s.size)) }
            }
            b.raw(chunkOffsetBox([chunkOffset]))
        }
        return w.bytes
    }
}
