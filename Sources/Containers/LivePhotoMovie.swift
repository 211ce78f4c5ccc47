/// The part of a Live Photo's movie FFmpeg cannot write: Apple's timed metadata track
/// `mebx` with the key `com.apple.quicktime.still-image-time`, one sample (int8 -1) at the
/// moment the still shows, placed by an empty edit, the way iPhones write it (IMG_3582.mov
/// in the test corpus has the same layout). Apple Photos, Immich and exiftool (`-ee`,
/// StillImageTime) read the still's moment from it. The QuickTime keys (the content
/// identifier among them) go into `moov/meta`, where an iPhone writes them and Apple
/// Photos looks, instead of FFmpeg's `moov/udta/meta`, without FFmpeg's `encoder`.
public enum LivePhotoMovie {
    public static let stillImageTimeKey = "com.apple.quicktime.still-image-time"
    /// The one sample: item size 9, local key 1, the value int8 -1 (as iPhones write it).
    static let stillImageTimeSample: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 1, 0xFF]

    /// `movie` with the track added. `seconds` is the still's time on the movie's
    /// timeline. The movie's `moov` must follow its media data (FFmpeg's default).
    public static func addingStillImageTime(_ seconds: Double, to movie: [UInt8]) throws -> [UInt8] {
        let tracks = try MovieTracks(file: movie)
        guard let video = tracks.tracks.first(where: { $0.handler == "vide" }) else { throw FormatError("movie", "no video track") }
        let top = ISOBox.sequence(in: movie, from: 0, limit: movie.count)
        guard let moovIndex = top.firstIndex(where: { $0.type == "moov" }),
            !top[(moovIndex + 1)...].contains(where: { $0.type == "mdat" })
        else { throw FormatError("movie", "moov before the media data: cannot append a track") }
        let moov = top[moovIndex]
        let children = moov.children(in: movie)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw FormatError("movie", "no mvhd") }
        let reader = ByteReader(movie, context: "mvhd")
        let version = movie[mvhd.payload.lowerBound]
        let movieTimescale = try reader.u32(at: mvhd.payload.lowerBound + (version == 1 ? 20 : 12))
        let movieDuration = version == 1
            ? try reader.u64(at: mvhd.payload.lowerBound + 24) : UInt64(try reader.u32(at: mvhd.payload.lowerBound + 16))
        let nextTrackOffset = mvhd.end - 4
        let nextTrackID = try reader.u32(at: nextTrackOffset)
        let trackID = max(nextTrackID, (tracks.tracks.map(\.id).max() ?? 0) + 1)

        // Everything but moov stays where it is; a small mdat with the sample follows.
        var out = Array(movie[0..<moov.offset]) + Array(movie[moov.end...])
        let sampleOffset = out.count + 8
        var mdat = ISOBoxWriter()
        mdat.box("mdat") { $0.raw(stillImageTimeSample) }
        out += mdat.bytes

        let mediaTimescale: UInt32 = 600
        let start = UInt64(max(0, (seconds * Double(movieTimescale)).rounded()))
        // FFmpeg's QuickTime keys (in udta/meta), to go where an iPhone puts them.
        var keys: [(key: String, data: [UInt8])] = []
        var w = ISOBoxWriter()
        try w.box("moov") { m in
            for child in children {
                switch child.type {
                case "mvhd":
                    var copy = Array(movie[child.offset..<child.end])
                    let at = nextTrackOffset - child.offset
                    let id = trackID + 1
                    copy[at] = UInt8(id >> 24); copy[at + 1] = UInt8((id >> 16) & 0xFF)
                    copy[at + 2] = UInt8((id >> 8) & 0xFF); copy[at + 3] = UInt8(id & 0xFF)
                    m.raw(copy)
                case "udta":
                    // Everything but the keys, which move to moov/meta below.
                    try m.box("udta") { u in
                        for item in child.children(in: movie) {
                            if item.type == "meta" {
                                keys += try quickTimeKeys(in: movie, meta: item)
                            } else {
                                u.raw(movie[item.offset..<item.end])
                            }
                        }
                    }
                case "trak" where try MovieTracks.trackID(of: child, in: movie) == video.id:
                    // Enabled, in the movie, in its preview and poster (0xF), as an iPhone's.
                    var copy = Array(movie[child.offset..<child.end])
                    if let tkhd = child.children(in: movie).first(where: { $0.type == "tkhd" }) {
                        copy[tkhd.offset - child.offset + tkhd.headerSize + 3] |= 0x0F
                    }
                    m.raw(copy)
                default:
                    m.raw(movie[child.offset..<child.end])
                }
            }
            m.raw(track(id: trackID, videoID: video.id, start: start, movieDuration: movieDuration, mediaTimescale: mediaTimescale, sampleOffset: sampleOffset))
            // FFmpeg's own `encoder` (Lavf…) and `creation_time` (mvhd has it) are not
            // an iPhone's keys and are left out.
            let kept = keys.filter { $0.key.hasPrefix("com.apple.quicktime.") }
            if !kept.isEmpty { m.raw(metaBox(kept)) }
        }
        return out + w.bytes
    }

    /// The `mdta` keys of a `meta` box (hdlr, keys, ilst), each with its whole `data` box.
    static func quickTimeKeys(in movie: [UInt8], meta: ISOBox) throws -> [(key: String, data: [UInt8])] {
        let r = ByteReader(movie, context: "QuickTime meta")
        // QuickTime's meta has no version field (an iPhone's); FFmpeg writes one (ISO's).
        var children = meta.children(in: movie)
        if !children.contains(where: { $0.type == "hdlr" }) { children = meta.children(in: movie, skip: 4) }
        guard let keysBox = children.first(where: { $0.type == "keys" }), let ilst = children.first(where: { $0.type == "ilst" }) else { return [] }
        var names: [String] = []
        var at = keysBox.payload.lowerBound + 8  // version, flags, entry count
        while at + 8 <= keysBox.end {
            let size = Int(try r.u32(at: at))
            guard size >= 8, at + size <= keysBox.end else { break }
            names.append(String(decoding: movie[(at + 8)..<(at + size)], as: UTF8.self))
            at += size
        }
        var out: [(String, [UInt8])] = []
        // Each item's type is its key's 1-based index, binary (not a box type ISOBox reads).
        at = ilst.payload.lowerBound
        while at + 8 <= ilst.end {
            let size = Int(try r.u32(at: at)), index = Int(try r.u32(at: at + 4))
            guard size >= 8, at + size <= ilst.end else { break }
            if index >= 1, index <= names.count,
                let data = ISOBox.sequence(in: movie, from: at + 8, limit: at + size).first(where: { $0.type == "data" })
            {
                out.append((names[index - 1], Array(movie[data.offset..<data.end])))
            }
            at += size
        }
        return out
    }

    /// A QuickTime `meta` box of `mdta` keys, as an iPhone writes it at the top of `moov`.
    static func metaBox(_ keys: [(key: String, data: [UInt8])]) -> [UInt8] {
        var w = ISOBoxWriter()
        w.box("meta") { m in
            m.box("hdlr", version: 0) { h in
                h.u32(0)
                h.raw(Array("mdta".utf8))
                h.raw([UInt8](repeating: 0, count: 12))
                h.u8(0)
            }
            m.box("keys", version: 0) { k in
                k.u32(UInt32(keys.count))
                for (key, _) in keys {
                    k.u32(UInt32(8 + key.utf8.count))
                    k.raw(Array("mdta".utf8))
                    k.raw(Array(key.utf8))
                }
            }
            m.box("ilst") { l in
                for (i, entry) in keys.enumerated() {
                    l.u32(UInt32(8 + entry.data.count))
                    l.u32(UInt32(i + 1))
                    l.raw(entry.data)
                }
            }
        }
        return w.bytes
    }

    /// Seconds into the movie at which its still was taken: the presentation time of the
    /// first sample of the `mebx` track keyed `com.apple.quicktime.still-image-time`,
    /// through the track's edit list. Nil when the movie has no such track. `movie` is the
    /// whole file, or its `moov` box alone with the file's size as `fileSize`.
    public static func stillImageTime(in movie: [UInt8], fileSize: Int? = nil) throws -> Double? {
        let tracks = try MovieTracks(file: movie, fileSize: fileSize)
        let key = Array(stillImageTimeKey.utf8)
        guard let track = tracks.tracks.first(where: { $0.handler == "meta" && $0.sampleDescription.firstRange(of: key) != nil }),
            !track.samples.isEmpty
        else { return nil }
        let children = tracks.moov.children(in: movie)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw FormatError("movie", "no mvhd") }
        let r = ByteReader(movie, context: "movie header")
        let movieTimescale = Double(try r.u32(at: mvhd.payload.lowerBound + (movie[mvhd.payload.lowerBound] == 1 ? 20 : 12)))
        guard movieTimescale > 0, track.timescale > 0 else { return nil }
        // The first sample's decode time is 0; edits place media time on the timeline.
        guard let elst = track.box.children(in: movie).first(where: { $0.type == "edts" })?.children(in: movie).first(where: { $0.type == "elst" })
        else { return 0 }
        let version = movie[elst.payload.lowerBound]
        let count = Int(try r.u32(at: elst.payload.lowerBound + 4))
        var at = elst.payload.lowerBound + 8
        var timeline = 0.0
        for _ in 0..<min(count, 64) {
            let duration: Double, mediaTime: Int64
            if version == 1 {
                duration = Double(try r.u64(at: at))
                mediaTime = Int64(bitPattern: try r.u64(at: at + 8))
                at += 20
            } else {
                duration = Double(try r.u32(at: at))
                mediaTime = Int64(Int32(bitPattern: try r.u32(at: at + 4)))
                at += 12
            }
            if mediaTime == -1 {
                timeline += duration / movieTimescale
            } else {
                return timeline + Double(0 - mediaTime) / Double(track.timescale)
            }
        }
        return nil
    }

    /// A QuickTime `hdlr` as Apple writes it: component type and subtype, manufacturer
    /// `appl`, flags, and a Pascal-string name.
    static func handler(_ w: inout ISOBoxWriter, component: String, subtype: String, flags: UInt32, name: String) {
        w.box("hdlr", version: 0) { b in
            b.fourCC(component); b.fourCC(subtype); b.fourCC("appl")
            b.u32(flags); b.u32(0)
            let bytes = Array(name.utf8)
            b.u8(UInt8(bytes.count)); b.raw(bytes)
        }
    }

    static func track(id: UInt32, videoID: UInt32, start: UInt64, movieDuration: UInt64, mediaTimescale: UInt32, sampleOffset: Int) -> [UInt8] {
        var w = ISOBoxWriter()
        w.box("trak") { t in
            // Enabled, in movie, in preview, in poster: as Apple flags it.
            t.box("tkhd", version: 0, flags: 0x0F) { b in
                b.u32(0); b.u32(0)  // creation, modification
                b.u32(id); b.u32(0)
                b.u32(UInt32(clamping: movieDuration))
                b.u32(0); b.u32(0)  // reserved
                b.u16(0); b.u16(0)  // layer, alternate group
                b.u16(0); b.u16(0)  // volume, reserved
                for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { b.u32(v) }
                b.u32(0); b.u32(0)  // width, height
            }
            t.box("edts") { e in
                e.box("elst", version: 0) { b in
                    // An empty edit up to the still's moment, then the one sample.
                    b.u32(start > 0 ? 2 : 1)
                    if start > 0 {
                        b.u32(UInt32(clamping: start)); b.u32(0xFFFF_FFFF); b.u32(0x0001_0000)
                    }
                    b.u32(1); b.u32(0); b.u32(0x0001_0000)
                }
            }
            t.box("tref") { r in r.box("cdsc") { $0.u32(videoID) } }
            t.box("mdia") { md in
                md.box("mdhd", version: 0) { b in
                    b.u32(0); b.u32(0)
                    b.u32(mediaTimescale); b.u32(1)
                    b.u16(0x55C4)  // language: undetermined
                    b.u16(0)
                }
                handler(&md, component: "mhlr", subtype: "meta", flags: 1, name: "Core Media Metadata")
                md.box("minf") { mi in
                    mi.box("gmhd") { g in
                        g.box("gmin", version: 0) { b in
                            b.u16(0x40)  // graphics mode: dither copy
                            b.u16(0x8000); b.u16(0x8000); b.u16(0x8000)
                            b.u16(0); b.u16(0)  // balance, reserved
                        }
                    }
                    handler(&mi, component: "dhlr", subtype: "alis", flags: 0, name: "Core Media Data Handler")
                    mi.box("dinf") { d in
                        d.box("dref", version: 0) { b in
                            b.u32(1)
                            b.box("alis", version: 0, flags: 1) { _ in }  // the data is in this file
                        }
                    }
                    var description = ISOBoxWriter()
                    description.box("stsd", version: 0) { b in
                        b.u32(1)
                        b.box("mebx") { e in
                            e.raw([0, 0, 0, 0, 0, 0]); e.u16(1)  // reserved, data reference index
                            e.box("keys") { k in
                                // Local key 1: the mdta key, its value a signed 8-bit integer
                                // (well-known type 65).
                                k.box("\u{0}\u{0}\u{0}\u{1}") { entry in
                                    entry.box("keyd") { $0.fourCC("mdta"); $0.raw(Array(stillImageTimeKey.utf8)) }
                                    entry.box("dtyp") { $0.u32(0); $0.u32(65) }
                                }
                            }
                        }
                    }
                    mi.raw(MovieRewriter.newSampleTable(
                        sampleDescription: description.bytes,
                        samples: [MovieRewriter.SampleLocation(offset: 0, size: stillImageTimeSample.count, duration: 1, isSync: true)],
                        chunkOffset: sampleOffset))
                }
            }
        }
        return w.bytes
    }
}
