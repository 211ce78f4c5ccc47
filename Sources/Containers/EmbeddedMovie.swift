/// A movie stored inside a still: Google/Android Motion Photos and Samsung Motion Photos.
///
/// Where the movie is declared:
/// - XMP `GCamera:MotionPhoto="1"` with a `Container:Directory` whose `MotionPhoto` item
///   gives the movie's length, counted from the end of the file (Motion Photo format 1.0);
/// - older XMP `GCamera:MicroVideo="1"` with `MicroVideoOffset`: bytes from the end;
/// - Samsung's trailer, where the string `MotionPhoto_Data` precedes the movie;
/// - a Samsung HEIC's top-level `mpvd` box, whose payload is the movie.
///
/// Declared lengths are hints: files rewritten by other tools keep stale ones. The movie
/// is where an `ftyp` box starts a run of valid boxes holding `moov` and `mdat`, and it
/// ends where that run ends.
public struct EmbeddedMovie: Sendable, Equatable {
    /// The movie's bytes within the still.
    public let range: Range<Int>
    /// What declared it: "XMP Container:Directory", "XMP MicroVideoOffset",
    /// "Samsung MotionPhoto_Data", "HEIF mpvd box".
    public let declaredBy: String
    /// Set when the declared position or length disagrees with what the bytes show.
    public let note: String?

    /// Finds the movie in a still, or nil when the still declares none. Throws when a
    /// movie is declared but no movie can be found where it could be.
    ///
    /// `imageEnd` is where the still's own image data ends (a JPEG's EOI, or the end of
    /// its MPF images); the movie is searched for after it.
    public static func find(in bytes: [UInt8], xmp: XMPPacket?, imageEnd: Int?) throws -> EmbeddedMovie? {
        let samsungMarker = Array("MotionPhoto_Data".utf8)
        // A HEIF's mpvd box.
        if let ftyp = FileTypeBox(fileStart: Array(bytes.prefix(64))), ftyp.majorBrand != "qt  " {
            for box in ISOBox.sequence(in: bytes, from: 0, limit: bytes.count) where box.type == "mpvd" {
                guard let movie = movie(in: bytes, at: box.payload.lowerBound, limit: box.end) else {
                    throw FormatError("Motion Photo", "the mpvd box at offset \(box.offset) does not hold a movie")
                }
                return EmbeddedMovie(range: movie, declaredBy: "HEIF mpvd box", note: nil)
            }
        }

        var declared: [(source: String, start: Int)] = []
        if let xmp {
            if xmp.value(XMPNamespace.gCamera, "MotionPhoto") == "1" {
                // Items are laid out in directory order after the primary; each length
                // covers the item, its padding precedes the next one.
                let items = xmp.arrayItems(XMPNamespace.container, "Directory")
                var fromEnd = 0
                var movieFromEnd: Int?
                for item in items.reversed() {
                    let length = Int(item[.init(XMPNamespace.containerItem, "Length")] ?? "") ?? 0
                    let semantic = item[.init(XMPNamespace.containerItem, "Semantic")] ?? ""
                    fromEnd += length
                    if semantic == "MotionPhoto" { movieFromEnd = fromEnd }
                }
                if let movieFromEnd, movieFromEnd > 0 {
                    declared.append(("XMP Container:Directory", bytes.count - movieFromEnd))
                } else {
                    declared.append(("XMP GCamera:MotionPhoto", -1))
                }
            }
            if xmp.value(XMPNamespace.gCamera, "MicroVideo") == "1" {
                let offset = Int(xmp.value(XMPNamespace.gCamera, "MicroVideoOffset") ?? "") ?? -1
                declared.append(("XMP MicroVideoOffset", offset > 0 ? bytes.count - offset : -1))
            }
        }
        let searchFrom = min(max(imageEnd ?? 0, 0), bytes.count)
        if let marker = firstIndex(of: samsungMarker, in: bytes, from: searchFrom) {
            declared.append(("Samsung MotionPhoto_Data", marker + samsungMarker.count))
        }
        guard let first = declared.first else { return nil }

        // The declared positions first, then any ftyp after the image.
        for candidate in declared where candidate.start >= searchFrom {
            if let movie = movie(in: bytes, at: candidate.start, limit: bytes.count) {
                return EmbeddedMovie(range: movie, declaredBy: candidate.source, note: nil)
            }
        }
        var pos = searchFrom
        while let hit = firstIndex(of: Array("ftyp".utf8), in: bytes, from: pos) {
            if hit >= 4, let movie = movie(in: bytes, at: hit - 4, limit: bytes.count) {
                let said = first.start >= 0 ? "declared at offset \(first.start)" : "declared without a usable length"
                return EmbeddedMovie(
                    range: movie, declaredBy: first.source,
                    note: "the movie is at offset \(movie.lowerBound) (\(movie.count) bytes), \(said)")
            }
            pos = hit + 4
        }
        throw FormatError("Motion Photo", "\(first.source) declares a movie, but no MP4/QuickTime data follows the image")
    }

    /// A movie appended after `imageEnd` that nothing declares (a file made by
    /// concatenation): its extent, or nil.
    public static func undeclared(in bytes: [UInt8], after imageEnd: Int) -> Range<Int>? {
        guard imageEnd >= 0, imageEnd < bytes.count,
            let hit = firstIndex(of: Array("ftyp".utf8), in: bytes, from: imageEnd), hit >= 4
        else { return nil }
        return movie(in: bytes, at: hit - 4, limit: bytes.count)
    }

    /// The extent of a movie starting at `start`: a run of boxes beginning with `ftyp`
    /// and holding `moov` and `mdat`.
    static func movie(in bytes: [UInt8], at start: Int, limit: Int) -> Range<Int>? {
        let boxes = ISOBox.sequence(in: bytes, from: start, limit: limit)
        guard let firstBox = boxes.first, firstBox.type == "ftyp",
            boxes.contains(where: { $0.type == "moov" }), boxes.contains(where: { $0.type == "mdat" }),
            let last = boxes.last
        else { return nil }
        return start..<last.end
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start >= 0, bytes.count >= needle.count else { return nil }
        let first = needle[0]
        var i = start
        let lastStart = bytes.count - needle.count
        while i <= lastStart {
            if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
