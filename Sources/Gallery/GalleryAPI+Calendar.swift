import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library

/// The timeline's calendar: the months the scrubber moves through, and "On this day".
///
/// ```
/// GET /api/years                      the years holding assets, newest first: [2025, 2024, …]
/// GET /api/months                     the months holding assets, newest first: ["2025-05", "2025-03", …]
/// GET /api/memories?today=2026-11-28  the earlier years' assets of that day (the page's local date):
///     [{"year": 2025, "day": "2025-11-28", "count": N, "assets": [up to 4 assets, oldest first]}, …] newest year first
/// ```
extension GalleryAPI {
    /// How many of a day's assets the memories' answer describes: what its card shows.
    static let memoryPictures = 4

    func addCalendarRoutes(to router: Router<some RequestContext>) {
        router.get("/api/years") { _, _ in
            let library = self.library
            return try jsonResponse(try await Blocking.run { try library.captureYears() })
        }
        router.get("/api/months") { _, _ in
            let library = self.library
            return try jsonResponse(try await Blocking.run { try library.captureMonths() })
        }
        router.get("/api/memories") { request, _ in
            let text = request.uri.formParameters["today"].map(String.init) ?? ""
            guard let today = Memory.date(text) else {
                throw HTTPError(.badRequest, message: "today=\(text): give the page's local date, such as 2026-11-28")
            }
            let library = self.library
            return jsonResponse(
                bytes: try await Blocking.run {
                    let memories = try library.memories(month: today.month, day: today.day, before: today.year)
                    let shown = memories.flatMap { $0.assets.prefix(Self.memoryPictures) }
                    let assets = Dictionary(uniqueKeysWithValues: try library.describe(shown).map { ($0.id, $0) })
                    let media = try library.media(of: shown)
                    var bytes = Array("[".utf8)
                    for (i, memory) in memories.enumerated() {
                        if i > 0 { bytes.append(UInt8(ascii: ",")) }
                        bytes += Array("{\"year\":\(memory.year),\"day\":\"\(memory.day)\",\"count\":\(memory.assets.count),\"assets\":[".utf8)
                        let pictures = memory.assets.prefix(Self.memoryPictures).compactMap { assets[$0] }
                        for (j, asset) in pictures.enumerated() {
                            if j > 0 { bytes.append(UInt8(ascii: ",")) }
                            bytes += GalleryAsset(asset, media[asset.id]).json
                        }
                        bytes += Array("]}".utf8)
                    }
                    return bytes + Array("]".utf8)
                })
        }
    }
}
