import Foundation
import Testing

@testable import Library

/// Reverse geocoding from the bundled GeoNames places: known places, the antimeridian and
/// the poles, and the k-d tree against every place measured one by one.
struct PlaceIndexTests {
    static let index = PlaceIndex.bundled

    @Test func knownLocationsAreNamedAfterTheirNearestPlace() throws {
        #expect(Self.index.count > 150_000)
        // The corpus's Live Photos (its day headers' coordinates), and central Lisbon,
        // whose nearest place of 1,000 people is the quarter of Intendente.
        let cases: [(Double, Double, String, String?, String, String, Double)] = [
            (34.731, -86.587, "Huntsville", "Alabama", "US", "United States", 200),
            (34.665, -86.470, "Owens Cross Roads", "Alabama", "US", "United States", 9_000),
            (34.008, -118.498, "Santa Monica", "California", "US", "United States", 1_500),
            (38.7223, -9.1393, "Intendente", "Lisbon", "PT", "Portugal", 400),
        ]
        for (latitude, longitude, name, region, code, country, within) in cases {
            let match = try #require(Self.index.nearest(latitude: latitude, longitude: longitude))
            #expect(match.place.name == name && match.place.region == region, "\(latitude), \(longitude): \(match.place)")
            #expect(match.place.countryCode == code && match.place.country == country)
            #expect(match.distance < within, "\(name): \(match.distance) m")
        }
    }

    @Test func theNearestPlaceMayBeAcrossTheAntimeridianOrThePole() throws {
        // On the antimeridian in Chukotka, the nearest town is at 179.1° W; east of Fiji
        // at 179.99° W, it is Labasa at 179.36° E; a longitude past 180 wraps.
        let chukotka = try #require(Self.index.nearest(latitude: 65.8, longitude: 180))
        #expect(chukotka.place.name == "Egvekinot" && chukotka.place.longitude < 0, "\(chukotka.place)")
        let fiji = try #require(Self.index.nearest(latitude: -16.8, longitude: -179.99))
        #expect(fiji.place.name == "Labasa" && fiji.place.longitude > 0, "\(fiji.place)")
        #expect(Self.index.nearest(latitude: -16.8, longitude: 180.01)?.place == fiji.place)
        // At either pole every longitude is the same point.
        let north = try #require(Self.index.nearest(latitude: 90, longitude: 0))
        #expect(north.place.name == "Longyearbyen" && abs(north.distance - 1_309_500) < 1_000, "\(north)")
        #expect(Self.index.nearest(latitude: 90, longitude: -120)?.place == north.place)
        let south = try #require(Self.index.nearest(latitude: -90, longitude: 45))
        #expect(south.place.name == "Puerto Williams" && abs(south.distance - 3_899_200) < 1_000, "\(south)")
        #expect(Self.index.nearest(latitude: 91, longitude: 0) == nil)
        #expect(Self.index.nearest(latitude: .nan, longitude: 0) == nil)
    }

    @Test func aLocationIsNamedAfterATownWithin25KilometresAndARegionWithin100() throws {
        // Central Lisbon: the quarter, its region and country.
        let lisbon = try #require(Self.index.name(latitude: 38.7223, longitude: -9.1393))
        #expect(lisbon == PlaceName(city: "Intendente", region: "Lisbon", country: "Portugal", countryCode: "PT"))
        #expect(lisbon.description == "Intendente, Lisbon, Portugal")
        // Where the nearest place is 25 to 100 km away, its region and country alone: the
        // pole of Svalbard's north is 1,300 km from Longyearbyen, too far for either.
        for (latitude, longitude) in [(34.731, -86.587), (-16.8, -179.99), (65.8, 180.0)] {
            let match = try #require(Self.index.nearest(latitude: latitude, longitude: longitude))
            let name = try #require(Self.index.name(latitude: latitude, longitude: longitude))
            #expect(name.city == (match.distance <= PlaceIndex.cityRadius ? match.place.name : nil), "\(latitude), \(longitude): \(match)")
            #expect(name.region == match.place.region && name.countryCode == match.place.countryCode)
        }
        // 60 km out into the Atlantic off Lisbon: Portugal's coast, no town.
        let offshore = try #require(Self.index.nearest(latitude: 38.7, longitude: -10.0))
        #expect(offshore.distance > PlaceIndex.cityRadius && offshore.distance < PlaceIndex.regionRadius, "\(offshore)")
        let atSea = try #require(Self.index.name(latitude: 38.7, longitude: -10.0))
        #expect(atSea.city == nil && atSea.countryCode == "PT", "\(atSea)")
        #expect(atSea.description == "\(atSea.region.map { $0 + ", " } ?? "")Portugal")
        // The middle of the Pacific, both poles, and 0°, 0° (cameras without a fix): nothing.
        for (latitude, longitude) in [(0.0, -140.0), (90.0, 0.0), (-90.0, 0.0), (0.0, 0.0)] {
            #expect(Self.index.name(latitude: latitude, longitude: longitude) == nil, "\(latitude), \(longitude)")
        }
    }

    @Test func placeNamesMatchWholeWordsInAnyCaseWithOrWithoutAccents() {
        let places = [
            PlaceRecord(id: 1, name: PlaceName(city: "São Paulo", region: "São Paulo", country: "Brazil", countryCode: "BR")),
            PlaceRecord(id: 2, name: PlaceName(city: "New York City", region: "New York", country: "United States", countryCode: "US")),
            PlaceRecord(id: 3, name: PlaceName(city: "Intendente", region: "Lisbon", country: "Portugal", countryCode: "PT")),
            PlaceRecord(id: 4, name: PlaceName(city: nil, region: "Lisbon", country: "Portugal", countryCode: "PT")),
        ]
        #expect(PlaceMatching.places(places, named: "sao paulo") == [1])
        #expect(PlaceMatching.places(places, named: "SÃO") == [1])
        #expect(PlaceMatching.places(places, named: "york") == [2])
        #expect(PlaceMatching.places(places, named: "new york city") == [2])
        #expect(PlaceMatching.places(places, named: " lisbon ") == [3, 4])
        #expect(PlaceMatching.places(places, named: "bon").isEmpty)
        #expect(PlaceMatching.places(places, named: "").isEmpty)
        #expect(PlaceMatching.places(places, inCountry: "pt") == [3, 4])
        #expect(PlaceMatching.places(places, inCountry: "United States") == [2])
        #expect(PlaceMatching.places(places, inCountry: "brazil") == [1])
        #expect(PlaceMatching.places(places, inCountry: "ortugal").isEmpty)
    }

    @Test func theTreeFindsWhatMeasuringEveryPlaceFinds() throws {
        // Points spread evenly over the sphere (a fixed sequence), and along the antimeridian
        // and near the poles: the tree's answer is as near as the nearest of all 155,000.
        let all = (0..<Self.index.count).compactMap { Self.index.place($0) }
        #expect(all.count == Self.index.count)
        var points: [(Double, Double)] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for _ in 0..<60 { points.append((asin(2 * next() - 1) * 180 / .pi, 360 * next() - 180)) }
        for latitude in stride(from: -85.0, through: 85, by: 17) { points += [(latitude, 180), (latitude, -179.999), (latitude, 179.999)] }
        points += [(89.99, 10), (-89.99, -170), (88, 179.5), (-88, -179.5)]
        for (latitude, longitude) in points {
            let found = try #require(Self.index.nearest(latitude: latitude, longitude: longitude))
            let nearest = all.map { Self.haversine(latitude, longitude, $0.latitude, $0.longitude) }.min()!
            #expect(abs(found.distance - nearest) < 2, "\(latitude), \(longitude): the tree found \(found.place.name) at \(found.distance) m, the nearest is at \(nearest) m")
        }
    }

    /// Metres along a sphere of the index's radius.
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let (φ1, φ2) = (lat1 * .pi / 180, lat2 * .pi / 180)
        let (dφ, dλ) = (φ2 - φ1, (lon2 - lon1) * .pi / 180)
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * PlaceIndex.earthRadius * asin(min(1, a.squareRoot()))
    }
}
