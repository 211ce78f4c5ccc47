import Foundation

/// Every located asset as a point of the Web Mercator square (the map's own projection),
/// sorted along a Z-order curve: each square of the map's quadtree is then a run of
/// consecutive points. A visible box is cut into the squares of its zoom's grid; each
/// square's points are counted by two binary searches and centred by prefix sums, so an
/// answer costs the same for a thousand points as for a million (a few hundred squares,
/// never the points themselves).
public struct MapIndex: Sendable {
    /// Depth of the quadtree: 2^24 squares across, about 2.4 m at the equator.
    static let depth = 24
    /// The latitude Web Mercator stops at (the map is a square).
    static let mercatorLimit = 85.051_128_78

    /// Z-order keys of the points, ascending.
    private let keys: [UInt64]
    private let assets: [Int64]
    /// Prefix sums of the points' Mercator x and y: `sumX[i]` is the sum of the first i.
    private let sumX: [Double]
    private let sumY: [Double]

    public var count: Int { keys.count }

    /// The points of the given assets (latitude and longitude in degrees).
    public init(_ points: [(asset: Int64, latitude: Double, longitude: Double)]) {
        var entries: [(key: UInt64, asset: Int64, x: Double, y: Double)] = []
        entries.reserveCapacity(points.count)
        for p in points where p.latitude.isFinite && p.longitude.isFinite {
            let (x, y) = Self.mercator(latitude: p.latitude, longitude: p.longitude)
            entries.append((Self.key(x: x, y: y), p.asset, x, y))
        }
        entries.sort { ($0.key, $0.asset) < ($1.key, $1.asset) }
        keys = entries.map(\.key)
        assets = entries.map(\.asset)
        var sx = [0.0], sy = [0.0]
        sx.reserveCapacity(entries.count + 1)
        sy.reserveCapacity(entries.count + 1)
        for e in entries {
            sx.append(sx[sx.count - 1] + e.x)
            sy.append(sy[sy.count - 1] + e.y)
        }
        (sumX, sumY) = (sx, sy)
    }

    /// A group of nearby assets: where its points are on average, how many, one of them
    /// (for its picture) and the square of the grid it fills (for "show these").
    public struct Cluster: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var count: Int
        public var asset: Int64
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double
    }

    /// The clusters of the assets inside the box, at a map zoom (0: the world in one 256 px
    /// tile; each level doubles it): squares of about 64 px at that zoom, at most about
    /// 4,096 of them (a larger box is cut coarser). A box may cross the antimeridian
    /// (`west` > `east`, or past ±180).
    public func clusters(south: Double, west: Double, north: Double, east: Double, zoom: Int) -> [Cluster] {
        guard !keys.isEmpty, south.isFinite, north.isFinite, west.isFinite, east.isFinite, south <= north else { return [] }
        var level = min(Self.depth, max(0, zoom + 2))
        // The longitudes as one or two runs within -180...180.
        var spans: [(Double, Double)]
        var width = east - west
        if width < 0 { width += 360 }
        if width >= 360 {
            spans = [(-180, 180)]
        } else {
            let w = (west + 180).truncatingRemainder(dividingBy: 360)
            let start = (w < 0 ? w + 360 : w) - 180
            spans = start + width <= 180 ? [(start, start + width)] : [(start, 180), (-180, start + width - 360)]
        }
        let (_, top) = Self.mercator(latitude: min(north, Self.mercatorLimit), longitude: 0)
        let (_, bottom) = Self.mercator(latitude: max(south, -Self.mercatorLimit), longitude: 0)
        func cells(_ level: Int) -> [(x: ClosedRange<Int>, y: ClosedRange<Int>)] {
            let n = Double(1 << level), last = (1 << level) - 1
            let ys = min(last, Int(top * n))...min(last, Int(bottom * n))
            return spans.map { span in
                let x0 = min(last, Int((span.0 + 180) / 360 * n)), x1 = min(last, Int((span.1 + 180) / 360 * n))
                return (x0...max(x0, x1), ys)
            }
        }
        var grid = cells(level)
        while level > 0, grid.reduce(0, { $0 + $1.x.count * $1.y.count }) > 4096 {
            level -= 1
            grid = cells(level)
        }
        let shift = UInt64(2 * (Self.depth - level))
        var out: [Cluster] = []
        for part in grid {
            for cy in part.y {
                for cx in part.x {
                    let prefix = Self.interleave(UInt32(cx), UInt32(cy))
                    let lo = lowerBound(prefix << shift), hi = lowerBound((prefix + 1) << shift)
                    guard hi > lo else { continue }
                    let n = Double(hi - lo)
                    let (latitude, longitude) = Self.degrees(x: (sumX[hi] - sumX[lo]) / n, y: (sumY[hi] - sumY[lo]) / n)
                    let size = 1 / Double(1 << level)
                    let (north, west) = Self.degrees(x: Double(cx) * size, y: Double(cy) * size)
                    let (south, east) = Self.degrees(x: Double(cx + 1) * size, y: Double(cy + 1) * size)
                    out.append(
                        Cluster(
                            latitude: latitude, longitude: longitude, count: hi - lo, asset: assets[lo], south: south, west: west, north: north,
                            east: east))
                }
            }
        }
        return out
    }

    /// The first index whose key is not below `key`.
    private func lowerBound(_ key: UInt64) -> Int {
        var (lo, hi) = (0, keys.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    // MARK: The projection and the curve

    /// Web Mercator, in 0...1 both ways: x from the antimeridian east, y from the top.
    static func mercator(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let φ = max(-mercatorLimit, min(mercatorLimit, latitude)) * .pi / 180
        var x = (longitude + 180) / 360
        x -= x.rounded(.down)
        let y = (1 - log(tan(φ) + 1 / cos(φ)) / .pi) / 2
        return (x, min(max(y, 0), 1))
    }

    static func degrees(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        (atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi, x * 360 - 180)
    }

    static func key(x: Double, y: Double) -> UInt64 {
        let n = Double(1 << depth), last = UInt32((1 << depth) - 1)
        return interleave(min(last, UInt32(max(0, x * n))), min(last, UInt32(max(0, y * n))))
    }

    /// The bits of x and y alternated, x's lowest first: a square of the quadtree at any
    /// level is a run of keys sharing their high bits.
    static func interleave(_ x: UInt32, _ y: UInt32) -> UInt64 {
        func spread(_ v: UInt32) -> UInt64 {
            var v = UInt64(v)
            v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
            v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
            v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            v = (v | (v << 2)) & 0x3333_3333_3333_3333
            v = (v | (v << 1)) & 0x5555_5555_5555_5555
            return v
        }
        return spread(x) | (spread(y) << 1)
    }
}
