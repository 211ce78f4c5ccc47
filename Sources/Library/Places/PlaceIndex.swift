import Codecs
import Foundation

/// Reverse geocoding without a network: the place nearest a location, from GeoNames'
/// cities data compiled into camlib (data/places/, made by its script).
///
/// Places are kept as points on the unit sphere in a k-d tree: the straight-line
/// distance between two such points grows with the distance along the surface, so the
/// nearest by one is the nearest by the other, across the antimeridian and at the poles
/// alike, with no special case for either. A lookup visits a few dozen of the 155,000
/// places.
///
/// ```swift
/// let match = PlaceIndex.bundled.nearest(latitude: 38.7223, longitude: -9.1393)
/// // match?.place: Intendente (a quarter of 1,000 people or more), region Lisbon, PT
/// ```
public final class PlaceIndex: Sendable {
    /// The places compiled into camlib, read on first use (about 0.1 s).
    public static let bundled: PlaceIndex = {
        do {
            return try PlaceIndex(gzip: EmbeddedPlaces.bytes)
        } catch {
            fatalError("camlib's bundled places (data/places/places.tsv.gz) cannot be read: \(error)")
        }
    }()

    /// The data as data/places/make_places.py writes it, unpacked.
    private let text: [UInt8]
    /// Where each place's line starts in `text`, by place number.
    private let lines: [Int32]
    /// Place numbers in k-d tree order: the node of a range `lo..<hi` is its middle, the
    /// range before it and the one after are its children, split on x, y, z in turn.
    private let tree: [Int32]
    /// Each place's point on the unit sphere, x y z, by place number.
    private let points: [Float]
    private let countries: [String: String]

    public var count: Int { lines.count }

    /// Reads places from a gzip file's bytes as make_places.py writes them.
    public convenience init(gzip: [UInt8]) throws {
        try self.init(text: try RawDeflate.inflate(gzip, limit: 64 << 20, gzipWrapped: true))
    }

    /// Reads places from their tab-separated lines: latitude, longitude, name, region,
    /// country code, population; then `#country`, code, name lines.
    public init(text: [UInt8]) throws {
        var lines: [Int32] = []
        var points: [Float] = []
        var countries: [String: String] = [:]
        var start = 0
        var lineNumber = 0
        while start < text.count {
            let (fields, end) = Self.fields(of: text, from: start)
            lineNumber += 1
            if fields.first?.elementsEqual("#country".utf8) == true {
                guard fields.count == 3 else { throw PlaceDataError(line: lineNumber, reason: "a country line has 3 fields") }
                countries[String(decoding: fields[1], as: UTF8.self)] = String(decoding: fields[2], as: UTF8.self)
            } else {
                guard fields.count == 6, let latitude = Double(String(decoding: fields[0], as: UTF8.self)),
                    let longitude = Double(String(decoding: fields[1], as: UTF8.self)), abs(latitude) <= 90, abs(longitude) <= 180
                else { throw PlaceDataError(line: lineNumber, reason: "a place line has latitude, longitude, name, region, country, population") }
                lines.append(Int32(start))
                let (x, y, z) = Self.point(latitude: latitude, longitude: longitude)
                points.append(Float(x))
                points.append(Float(y))
                points.append(Float(z))
            }
            start = end + 1
        }
        guard !lines.isEmpty else { throw PlaceDataError(line: 0, reason: "no places") }
        var tree = (0..<Int32(lines.count)).map { $0 }
        Self.build(&tree, 0, tree.count, axis: 0, points: points)
        (self.text, self.lines, self.points, self.tree, self.countries) = (text, lines, points, tree, countries)
    }

    /// The place nearest the location (degrees; longitudes past ±180 wrap), and its distance.
    public func nearest(latitude: Double, longitude: Double) -> PlaceMatch? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return nil }
        let (x, y, z) = Self.point(latitude: latitude, longitude: longitude)
        var best = (index: Int32(-1), squared: Float.infinity)
        search(0, tree.count, axis: 0, Float(x), Float(y), Float(z), &best)
        guard best.index >= 0, let place = place(Int(best.index)) else { return nil }
        // The chord between two points of the unit sphere is 2 sin(θ/2).
        let chord = min(2, Double(best.squared).squareRoot())
        return PlaceMatch(place: place, distance: 2 * asin(chord / 2) * Self.earthRadius)
    }

    /// Metres.
    static let earthRadius = 6_371_000.0

    /// The place numbered `index`, read from its line.
    func place(_ index: Int) -> Place? {
        let fields = Self.fields(of: text, from: Int(lines[index])).fields.map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 6, let latitude = Double(fields[0]), let longitude = Double(fields[1]) else { return nil }
        return Place(
            name: fields[2], region: fields[3].isEmpty ? nil : fields[3], countryCode: fields[4], country: countries[fields[4]] ?? fields[4],
            latitude: latitude, longitude: longitude, population: Int(fields[5]) ?? 0)
    }

    /// The tab-separated fields of the line starting at `start`, and where the line ends.
    private static func fields(of text: [UInt8], from start: Int) -> (fields: [ArraySlice<UInt8>], end: Int) {
        let end = text[start...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
        return (text[start..<end].split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false), end)
    }

    // MARK: The tree

    static func point(latitude: Double, longitude: Double) -> (Double, Double, Double) {
        let (φ, λ) = (latitude * .pi / 180, longitude * .pi / 180)
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    /// Arranges `tree[lo..<hi]` so that its middle is the median on `axis`, those before
    /// it no greater and those after no smaller, then each half likewise on the next axis.
    private static func build(_ tree: inout [Int32], _ lo: Int, _ hi: Int, axis: Int, points: [Float]) {
        guard hi - lo > 1 else { return }
        let middle = (lo + hi) / 2
        select(&tree, lo, hi, middle, axis: axis, points: points)
        build(&tree, lo, middle, axis: (axis + 1) % 3, points: points)
        build(&tree, middle + 1, hi, axis: (axis + 1) % 3, points: points)
    }

    /// Quickselect: puts the `k`th smallest of `tree[lo..<hi]` on `axis` at `k`.
    private static func select(_ tree: inout [Int32], _ lo: Int, _ hi: Int, _ k: Int, axis: Int, points: [Float]) {
        var (lo, hi) = (lo, hi - 1)
        while lo < hi {
            let pivot = points[3 * Int(tree[(lo + hi) / 2]) + axis]
            var (i, j) = (lo, hi)
            while i <= j {
                while points[3 * Int(tree[i]) + axis] < pivot { i += 1 }
                while points[3 * Int(tree[j]) + axis] > pivot { j -= 1 }
                if i <= j {
                    tree.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return }
        }
    }

    private func search(_ lo: Int, _ hi: Int, axis: Int, _ x: Float, _ y: Float, _ z: Float, _ best: inout (index: Int32, squared: Float)) {
        guard lo < hi else { return }
        let middle = (lo + hi) / 2
        let node = Int(tree[middle])
        let (dx, dy, dz) = (points[3 * node] - x, points[3 * node + 1] - y, points[3 * node + 2] - z)
        let squared = dx * dx + dy * dy + dz * dz
        if squared < best.squared { best = (Int32(node), squared) }
        let offset = (axis == 0 ? x : axis == 1 ? y : z) - points[3 * node + axis]
        let (near, far) = offset < 0 ? ((lo, middle), (middle + 1, hi)) : ((middle + 1, hi), (lo, middle))
        search(near.0, near.1, axis: (axis + 1) % 3, x, y, z, &best)
        // The other side can hold a nearer place only if the splitting plane is nearer.
        if offset * offset < best.squared { search(far.0, far.1, axis: (axis + 1) % 3, x, y, z, &best) }
    }
}

/// The bundled places' data does not read as make_places.py writes it.
public struct PlaceDataError: Error, CustomStringConvertible, Sendable {
    public let line: Int
    public let reason: String
    public var description: String { "places data, line \(line): \(reason)" }
}
