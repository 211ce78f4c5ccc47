// catalog-bench: what a long-lived process (the gallery server) pays per page, with the
// library open once: the page's listing, its assets described, written as the JSON contract.
//
//   swift run -c release catalog-bench LIBRARY [RUNS]
//
// Prints one JSON object per line: {"name", "runs", "p50_ms", "p95_ms", "rows"}. Used by
// bench/query.py; not part of camlib.
import Foundation
import Library

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: catalog-bench LIBRARY [RUNS]\n".utf8))
    exit(64)
}
// Opened as the gallery server opens it: a pool of connections, readers read-only.
let library = try PhotoLibrary(root: URL(fileURLWithPath: arguments[1]), mode: .write)
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20

/// A place in the timeline a person jumps to: a moment between February 2011 and 2026
/// (the synthetic library's years), as the scroll bar's year marks give it.
func jump(descending: Bool) -> AssetCursor {
    let day = Double.random(in: 2_455_593.5...2_461_041.5)  // 2011-02-01 … 2026-01-01
    return AssetCursor(sort: .captured, descending: descending, key: .number(day), id: descending ? .max : 0)
}

func page(_ name: String, _ make: () -> AssetQuery) throws {
    var times: [Double] = []
    var rows = 0
    for _ in 0..<runs {
        let query = make()
        let start = DispatchTime.now().uptimeNanoseconds
        var bytes = 0
        rows = 0
        try library.assets(matching: query) { assets in
            bytes += AssetDescription.prettyJSONElements(assets).count
            rows += assets.count
        }
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        precondition(bytes > 0 || rows == 0)
    }
    times.sort()
    let p95 = times[min(times.count - 1, Int((Double(times.count) * 0.95).rounded(.up)) - 1)]
    print(#"{"name": "\#(name)", "runs": \#(runs), "p50_ms": \#(times[times.count / 2]), "p95_ms": \#(p95), "rows": \#(rows)}"#)
}

try page("timeline: newest 50") {
    var q = AssetQuery()
    q.descending = true
    q.limit = 50
    return q
}
try page("timeline: 50 after a jump to a random day") {
    var q = AssetQuery()
    q.descending = true
    q.limit = 50
    q.after = jump(descending: true)
    return q
}
try page("timeline of Live Photos: 50 after a jump") {
    var q = AssetQuery()
    q.descending = true
    q.kinds = [.live]
    q.limit = 50
    q.after = jump(descending: true)
    return q
}
try page("timeline with depth: 50 after a jump") {
    var q = AssetQuery()
    q.descending = true
    q.has = [.aux(.depth)]
    q.limit = 50
    q.after = jump(descending: true)
    return q
}

/// The map (issue 40): its points read once, as `camlib serve` reads them on the first map
/// request after a change, then the clusters of random boxes at zooms from a continent to
/// a town, with their pictures' files looked up as the API does.
func mapClusters() throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let index = try library.mapIndex()
    let built = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    print(#"{"name": "map: every located asset read and indexed (once per change)", "runs": 1, "p50_ms": \#(built), "p95_ms": \#(built), "rows": \#(index.count), "goal_ms": null}"#)
    var times: [Double] = []
    var clusters = 0
    for i in 0..<(runs * 5) {
        let zoom = [2, 4, 6, 8, 10, 12, 14][i % 7]
        // A browser window of 1600x1000 px at that zoom, centred anywhere people live.
        let latitude = Double.random(in: -40...60), longitude = Double.random(in: -125...145)
        let degreesWide = 1600.0 / (256 * pow(2, Double(zoom))) * 360
        let degreesHigh = min(170, degreesWide * 1000 / 1600 * cos(latitude * .pi / 180))
        let begin = DispatchTime.now().uptimeNanoseconds
        let found = index.clusters(
            south: max(-90, latitude - degreesHigh / 2), west: longitude - degreesWide / 2, north: min(90, latitude + degreesHigh / 2),
            east: longitude + degreesWide / 2, zoom: zoom)
        _ = try library.media(of: found.map(\.asset))
        times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
        clusters = max(clusters, found.count)
    }
    times.sort()
    let p95 = times[min(times.count - 1, Int((Double(times.count) * 0.95).rounded(.up)) - 1)]
    print(#"{"name": "map: clusters of a window at zoom 2 to 14, with their pictures", "runs": \#(times.count), "p50_ms": \#(times[times.count / 2]), "p95_ms": \#(p95), "rows": \#(clusters), "goal_ms": 100}"#)
}
try mapClusters()
