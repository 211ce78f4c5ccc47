/// A named place of GeoNames' cities data (every place of 1,000 people or more): what a
/// location is called, offline.
public struct Place: Sendable, Equatable, Codable {
    public var name: String
    /// Its first-level region (a state, a province, a county of England); nil where
    /// GeoNames has none.
    public var region: String?
    /// ISO 3166-1 alpha-2 (`PT`).
    public var countryCode: String
    /// In English (`Portugal`).
    public var country: String
    public var latitude: Double
    public var longitude: Double
    public var population: Int
}

/// The place nearest a location, and how far it is.
public struct PlaceMatch: Sendable, Equatable {
    public var place: Place
    /// Along the Earth's surface (a sphere of 6,371 km), in metres.
    public var distance: Double
}
