/// A position in WGS 84 degrees (north and east positive) and metres above sea level.
public struct GeoLocation: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Exactly 0° north, 0° east: what devices write when they had no position, in the
    /// open sea where nobody takes photos.
    public var isNoFixPlaceholder: Bool { latitude == 0 && longitude == 0 }

    /// ISO 6709 as QuickTime's `com.apple.quicktime.location.ISO6709` writes it:
    /// "+34.6648-086.4704+197.095/".
    public init?(iso6709 text: String) {
        var numbers: [Double] = []
        var current = ""
        for c in text {
            if c == "+" || c == "-" || c == "/" {
                if !current.isEmpty {
                    guard let v = Double(current) else { return nil }
                    numbers.append(v)
                }
                current = c == "/" ? "" : String(c)
                if c == "/" { break }
            } else if c.isNumber || c == "." {
                current.append(c)
            } else {
                break  // a coordinate reference system ("CRSWGS_84") may follow
            }
        }
        if !current.isEmpty, let v = Double(current) { numbers.append(v) }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        self.init(latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
    }
}
