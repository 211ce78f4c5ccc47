import Foundation
import HTTPTypes
import Hummingbird

/// The map's background, as `camlib serve --map-tiles` sets it.
public struct MapSettings: Sendable, Encodable {
    public static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    public static let openStreetMapAttribution = "© OpenStreetMap contributors"

    /// A tile URL with {z}, {x} and {y}; nil: no background.
    public var tiles: String?
    public var attribution: String

    /// The tiles' scheme, host and port: what the page's policy lets images come from.
    var tileOrigin: String? {
        guard let tiles, let url = URL(string: tiles.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
            let scheme = url.scheme, let host = url.host
        else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Whether `text` is a tile URL the map can use: http(s), with {z}, {x} and {y}.
    public static func isTileURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return (lower.hasPrefix("https://") || lower.hasPrefix("http://")) && ["{z}", "{x}", "{y}"].allSatisfy(text.contains)
            && MapSettings(tiles: text, attribution: "").tileOrigin != nil
    }
}

/// Leaflet (leafletjs.com, BSD 2-clause), which the map is drawn with: the files of
/// Debian's libjs-leaflet, read from where it installs them the first time the page
/// asks. Not compiled in: the system's copy gets the system's security updates.
enum Leaflet {
    static let folder = "/usr/share/javascript/leaflet"
    static let files: [String: String] = [
        "leaflet.js": "text/javascript; charset=utf-8", "leaflet.css": "text/css; charset=utf-8",
        "images/layers.png": "image/png", "images/layers-2x.png": "image/png", "images/marker-icon.png": "image/png",
        "images/marker-icon-2x.png": "image/png", "images/marker-shadow.png": "image/png",
    ]

    static var isInstalled: Bool { FileManager.default.fileExists(atPath: folder + "/leaflet.min.js") }

    static func response(_ name: String, policy: String) -> Response {
        guard let type = files[name] else { return Response(status: .notFound) }
        // The minified script under the name the page asks for.
        let path = folder + "/" + (name == "leaflet.js" ? "leaflet.min.js" : name)
        guard let data = FileManager.default.contents(atPath: path) else {
            return Response(status: .notFound)
        }
        return WebPage.response(bytes: Array(data), type: type, policy: policy)
    }
}
