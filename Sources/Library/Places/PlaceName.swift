/// What camlib calls a location (an asset's `place`): the nearest named place within
/// ``PlaceIndex/cityRadius`` with its region and country; farther out, up to
/// ``PlaceIndex/regionRadius``, the region and country alone; nothing beyond (at sea, in
/// a wilderness), where the nearest town would mislead.
public struct PlaceName: Codable, Sendable, Equatable, Hashable {
    /// A city, town or quarter of 1,000 people or more (GeoNames' own name for it).
    public var city: String?
    /// Its first-level region: a state, a province, a county of England.
    public var region: String?
    /// In English (`Portugal`).
    public var country: String
    /// ISO 3166-1 alpha-2 (`PT`).
    public var countryCode: String

    public init(city: String?, region: String?, country: String, countryCode: String) {
        (self.city, self.region, self.country, self.countryCode) = (city, region, country, countryCode)
    }

    /// `Huntsville, Alabama, United States`: its parts, most local first, the region left
    /// out where it is the city's own name.
    public var description: String {
        var parts: [String] = []
        if let city { parts.append(city) }
        if let region, region != city { parts.append(region) }
        parts.append(country)
        return parts.joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey {
        case city, region, country, countryCode
    }

    /// Contract fields are always present, as null when unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(city, forKey: .city)
        try c.encode(region, forKey: .region)
        try c.encode(country, forKey: .country)
        try c.encode(countryCode, forKey: .countryCode)
    }
}

extension PlaceIndex {
    /// Metres: the farthest a named place may be to name a location after it.
    public static let cityRadius = 25_000.0
    /// Metres: the farthest a named place may be to give a location its region and country.
    public static let regionRadius = 100_000.0

    /// What a location is called (see ``PlaceName``); nil far from every place.
    public func name(latitude: Double, longitude: Double) -> PlaceName? {
        guard let match = nearest(latitude: latitude, longitude: longitude), match.distance <= Self.regionRadius else { return nil }
        let p = match.place
        return PlaceName(
            city: match.distance <= Self.cityRadius ? p.name : nil, region: p.region, country: p.country, countryCode: p.countryCode)
    }
}
