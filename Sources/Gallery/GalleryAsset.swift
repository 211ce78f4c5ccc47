import Foundation
import Library

/// One asset as the gallery's API gives it: every field of the `--json` contract, under
/// the same names, and `media`: the URLs of what a browser shows of its current version.
struct GalleryAsset: Encodable {
    var asset: AssetDescription
    var media: Media

    struct Media: Encodable {
        /// Resource ids of the still and movie the current version shows.
        var still: Int64?
        var movie: Int64?
        var thumbnail: String?
        var preview: String?
        /// H.264: plays in every browser.
        var video: String?
        var original: String?
        var originalMovie: String?
        /// Auxiliary image type → URL of its PNG, in the photo's orientation.
        var aux: [String: String]
    }

    init(_ asset: AssetDescription, _ shown: AssetMedia?) {
        self.asset = asset
        let id = asset.id
        func url(_ resource: Int64?, _ what: String) -> String? { resource.map { "/media/\(id)/\($0)/\(what)" } }
        let still = shown?.still, movie = shown?.movie
        // A video has no still: its thumbnail and preview are its first frame.
        let picture = still ?? movie
        var aux: [String: String] = [:]
        if let still {
            for a in asset.aux where a.path != nil { aux[a.type.rawValue] = "/media/\(id)/\(still)/aux/\(a.type.rawValue)" }
        }
        media = Media(
            still: still, movie: movie, thumbnail: url(picture, "thumbnail"), preview: url(picture, "preview"),
            video: url(movie, "movie"), original: url(still, "original"), originalMovie: url(movie, "original"), aux: aux)
    }

    enum Keys: String, CodingKey { case media }

    func encode(to encoder: any Encoder) throws {
        try asset.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(media, forKey: .media)
    }
}

/// A page of the timeline: the assets, and where the next page starts (nil at the end).
struct GalleryPage: Encodable {
    var assets: [GalleryAsset]
    var next: String?
}
