import Foundation
import Testing

@testable import Library

/// Clusters for a visible box: every point inside counted once, at its average place,
/// the same as counting the points one by one; across the antimeridian; coarser for a
/// box too large for its zoom.
struct MapIndexTests {
    /// Points spread over the world from a fixed sequence, and a crowd in Lisbon.
    static let points: [(asset: Int64, latitude: Double, longitude: Double)] = {
        var seed: UInt64 = 40
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        var out: [(Int64, Double, Double)] = []
        for i in 0..<20_000 { out.append((Int64(i + 1), asin(2 * next() - 1) * 180 / .pi * 0.94, 360 * next() - 180)) }
        for i in 0..<5_000 { out.append((Int64(20_001 + i), 38.72 + (next() - 0.5) * 0.05, -9.14 + (next() - 0.5) * 0.05)) }
        return out
    }()
    static let index = MapIndex(points)

    static func inside(_ p: (asset: Int64, latitude: Double, longitude: Double), _ c: MapIndex.Cluster) -> Bool {
        p.latitude >= c.south && p.latitude < c.north && p.longitude >= c.west && p.longitude < c.east
    }

    @Test func theWorldAtZoomZeroHoldsEveryPointOnceAtItsAverage() {
        let clusters = Self.index.clusters(south: -90, west: -180, north: 90, east: 180, zoom: 0)
        #expect(clusters.count <= 16)
        #expect(clusters.reduce(0) { $0 + $1.count } == Self.points.count)
        for c in clusters {
            let members = Self.points.filter { Self.inside($0, c) }
            #expect(members.count == c.count, "\(c)")
            #expect(members.contains { $0.asset == c.asset })
            // The average in Mercator, within the cluster's square.
            #expect(c.latitude >= c.south && c.latitude <= c.north && c.longitude >= c.west && c.longitude <= c.east)
        }
    }

    @Test func zoomingInSplitsClustersAndKeepsTheirPoints() {
        // Lisbon's crowd: one cluster at zoom 3, many at zoom 14, the same 5,000 points.
        let box = (south: 38.6, west: -9.3, north: 38.85, east: -9.0)
        let far = Self.index.clusters(south: box.south, west: box.west, north: box.north, east: box.east, zoom: 3)
        let near = Self.index.clusters(south: box.south, west: box.west, north: box.north, east: box.east, zoom: 14)
        #expect(far.count == 1 && far[0].count >= 5_000, "\(far)")
        #expect(near.count > 50, "\(near.count)")
        let lisbon = Self.points.filter { $0.latitude >= 38.6 && $0.latitude < 38.85 && $0.longitude >= -9.3 && $0.longitude < -9.0 }
        // At zoom 14 the squares are small: every cluster lies in the box, and every point
        // of the box is in one of them.
        let counted = near.filter { $0.north > box.south && $0.south < box.north && $0.east > box.west && $0.west < box.east }
        #expect(counted.reduce(0) { $0 + $1.count } >= lisbon.count)
        for c in near.prefix(20) {
            #expect(Self.points.filter { Self.inside($0, c) }.count == c.count, "\(c)")
        }
    }

    @Test func aBoxAcrossTheAntimeridianTakesBothSides() {
        let points: [(asset: Int64, latitude: Double, longitude: Double)] = [(1, -17.8, 178.4), (2, -17.7, -179.9), (3, -17.7, 170.0), (4, 10, 0)]
        let index = MapIndex(points)
        for (west, east) in [(175.0, -175.0), (175.0, 185.0), (-185.0, -175.0)] {
            let found = Set(index.clusters(south: -20, west: west, north: -15, east: east, zoom: 8).map(\.asset))
            #expect(found == [1, 2], "\(west)…\(east): \(found)")
        }
        #expect(index.clusters(south: -20, west: 160, north: -15, east: 161, zoom: 8).isEmpty)
        #expect(MapIndex([]).clusters(south: -90, west: -180, north: 90, east: 180, zoom: 3).isEmpty)
    }

    @Test func aBoxTooLargeForItsZoomIsCutCoarser() {
        let clusters = Self.index.clusters(south: -85, west: -180, north: 85, east: 180, zoom: 12)
        #expect(!clusters.isEmpty && clusters.count <= 4096)
        #expect(clusters.reduce(0) { $0 + $1.count } == Self.points.count)
    }
}
