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
