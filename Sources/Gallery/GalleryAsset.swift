import Foundation
import Library

/// One asset as the gallery's API gives it: every field of the `--json` contract, under
/// the same names (written by the contract's own writer), and `media`: the URLs of what a
/// browser shows of its current version.
struct GalleryAsset {
    var asset: AssetDescription
    var media: Media

    struct Media {
        /// Resource ids of the still and movie the current version shows.
        var still: Int64?
        var movie: Int64?
        var thumbnail: String?
        /// A worker has still to make the thumbnail: the page shows a placeholder and asks
        /// again (`GET /api/thumbnails/pending`).
        var thumbnailPending: Bool
        var preview: String?
        /// H.264: plays in every browser.
        var video: String?
        var original: String?
        var originalMovie: String?
        /// Auxiliary image type → URL of its PNG, in the photo's orientation.
        var aux: [(type: String, url: String)]
    }

    init(_ asset: AssetDescription, _ shown: AssetMedia?) {
        self.asset = asset
        let id = asset.id
        func url(_ resource: Int64?, _ what: String) -> String? { resource.map { "/media/\(id)/\($0)/\(what)" } }
        let still = shown?.still, movie = shown?.movie
        // A video has no still: its thumbnail and preview are its first frame.
        let picture = still ?? movie
        var aux: [(String, String)] = []
        if let still {
            for type in Set(asset.aux.filter { $0.path != nil }.map(\.type.rawValue)).sorted() {
                aux.append((type, "/media/\(id)/\(still)/aux/\(type)"))
            }
        }
        media = Media(
            still: still, movie: movie, thumbnail: url(picture, "thumbnail"),
            thumbnailPending: shown?.thumbnailPending ?? false, preview: url(picture, "preview"),
            video: url(movie, "movie"), original: url(still, "original"), originalMovie: url(movie, "original"), aux: aux)
    }

    /// The asset's JSON: the contract's pretty-printed object with `media` added last.
    /// Media values are ids and URLs made of letters, digits and `/`: nothing to escape.
    var json: [UInt8] {
        var bytes = asset.prettyJSON
        // The contract's object ends with "\n}".
        guard bytes.last == UInt8(ascii: "}") else { return bytes }
        bytes.removeLast()
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        var m = ",\n  \"media\" : {"
        func field(_ name: String, _ value: String?, quoted: Bool = true) {
            m += "\"\(name)\":" + (value.map { quoted ? "\"\($0)\"" : $0 } ?? "null") + ","
        }
        field("still", media.still.map(String.init), quoted: false)
        field("movie", media.movie.map(String.init), quoted: false)
        field("thumbnail", media.thumbnail)
        field("thumbnailPending", String(media.thumbnailPending), quoted: false)
        field("preview", media.preview)
        field("video", media.video)
        field("original", media.original)
        field("originalMovie", media.originalMovie)
        m += "\"aux\":{" + media.aux.map { "\"\($0.type)\":\"\($0.url)\"" }.joined(separator: ",") + "}}\n}"
        bytes.append(contentsOf: m.utf8)
        return bytes
    }

    /// `{"assets": [...], "next": CURSOR, "previous": CURSOR}`: a page of the timeline;
    /// `previous` (from `before=`) continues towards the timeline's start.
    static func page(_ assets: [GalleryAsset], next: String?, previous: String? = nil) -> [UInt8] {
        var bytes = Array("{\"assets\":[".utf8)
        bytes.reserveCapacity(assets.count * 3000)
        for (i, asset) in assets.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += asset.json
        }
        // A cursor is base64url: nothing to escape.
        bytes += Array("],\"next\":\(next.map { "\"\($0)\"" } ?? "null"),\"previous\":\(previous.map { "\"\($0)\"" } ?? "null")}".utf8)
        return bytes
    }
}
