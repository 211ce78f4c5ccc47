import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library

/// The map's API: clusters of the located assets in the visible box, computed here from
/// ``MapIndex`` so that a million located assets answer as fast as a thousand.
///
/// ```
/// GET /api/map?south=S&west=W&north=N&east=E&zoom=Z
///     {"total": N, "updating": false, "clusters": [{latitude, longitude, count, asset, south, west, north, east, thumbnail}]}
/// GET /api/map/settings
///     {"tiles": URL or null, "attribution": TEXT, "leaflet": true when Leaflet is installed}
/// ```
/// `thumbnail` is the URL of the picture of the cluster's one asset it names; the square
/// (`south`…`east`) is what `box=` of the timeline shows.
extension GalleryAPI {
    struct MapAnswer: Encodable {
        /// A cluster of the index, with its picture's URL beside its fields.
        struct Cluster: Encodable {
            var cluster: MapIndex.Cluster
            var thumbnail: String?

            enum CodingKeys: String, CodingKey { case thumbnail }

            func encode(to encoder: any Encoder) throws {
                try cluster.encode(to: encoder)
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(thumbnail, forKey: .thumbnail)
            }
        }

        /// Located assets outside the trash, in all the map.
        var total: Int
        /// The points are being read again (a large library changed): this answer may
        /// lack the newest; ask again in a moment.
        var updating: Bool
        var clusters: [Cluster]
    }

    struct MapSettingsAnswer: Encodable {
        var tiles: String?
        var attribution: String
        var leaflet: Bool
    }

    func addMapRoutes(to router: Router<some RequestContext>) {
        router.get("/api/map/settings") { _, _ in
            try jsonResponse(MapSettingsAnswer(tiles: map.tiles, attribution: map.attribution, leaflet: Leaflet.isInstalled))
        }
        router.get("/api/map") { request, _ in
            let parameters = request.uri.formParameters
            func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double {
                guard let text = parameters[Substring(name)], let value = Double(String(text)), value.isFinite, range.contains(value) else {
                    throw HTTPError(.badRequest, message: "\(name): a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
                }
                return value
            }
            let south = try number("south", -90...90), north = try number("north", -90...90)
            let west = try number("west", -540...540), east = try number("east", -540...540)
            let zoom = Int(try number("zoom", 0...24))
            guard south <= north else { throw HTTPError(.badRequest, message: "south must not be north of north") }
            let library = self.library, points = self.mapPoints
            let answer = try await Blocking.run {
                let index = try points.index()
                let clusters = index.clusters(south: south, west: west, north: north, east: east, zoom: zoom)
                let media = try library.media(of: clusters.map(\.asset))
                return MapAnswer(
                    total: index.count, updating: points.isRefreshing,
                    clusters: clusters.map { c in
                        let shown = media[c.asset].flatMap { $0.still ?? $0.movie }
                        return MapAnswer.Cluster(cluster: c, thumbnail: shown.map { "/media/\(c.asset)/\($0)/thumbnail" })
                    })
            }
            return try jsonResponse(answer)
        }
    }
}
