// places-bench: camlib's offline geocoder timed in one process: reading the bundled
// places (GeoNames' 155,000, compiled in), then naming each of the given locations.
//
//   swift run -c release places-bench POINTS
//
// POINTS: one "latitude longitude" per line. Prints one JSON object: {"load_s",
// "lookups", "lookup_s", "named", "cities"} and, on stderr, nothing. Used by
// bench/places.py; not part of camlib.
import Foundation
import Library

let arguments = CommandLine.arguments
guard arguments.count == 2, let text = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: places-bench POINTS\n".utf8))
    exit(64)
}
var points: [(Double, Double)] = []
for line in text.split(separator: "\n") {
    let parts = line.split(separator: " ")
    if parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) { points.append((latitude, longitude)) }
}
let clock = ContinuousClock()
let start = clock.now
let index = PlaceIndex.bundled
let loaded = clock.now
var named = 0, cities = 0
for (latitude, longitude) in points {
    if let name = index.name(latitude: latitude, longitude: longitude) {
        named += 1
        if name.city != nil { cities += 1 }
    }
}
let done = clock.now
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
print(
    "{\"load_s\": \(seconds(loaded - start)), \"lookups\": \(points.count), \"lookup_s\": \(seconds(done - loaded)), \"named\": \(named), \"cities\": \(cities)}"
)
