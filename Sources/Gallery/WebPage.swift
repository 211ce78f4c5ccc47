import HTTPTypes
import Hummingbird
import HummingbirdCore

/// The page: its HTML, script and style, compiled into the binary from Web/ (SwiftPM's
/// embedInCode), so an installed camlib needs no files beside it.
enum WebPage {
    static let files: [String: (bytes: [UInt8], type: String)] = [
        "index.html": (PackageResources.index_html, "text/html; charset=utf-8"),
        "gallery.js": (PackageResources.gallery_js, "text/javascript; charset=utf-8"),
        "upload.js": (PackageResources.upload_js, "text/javascript; charset=utf-8"),
        "download.js": (PackageResources.download_js, "text/javascript; charset=utf-8"),
        "scrubber.js": (PackageResources.scrubber_js, "text/javascript; charset=utf-8"),
        "memories.js": (PackageResources.memories_js, "text/javascript; charset=utf-8"),
        "slideshow.js": (PackageResources.slideshow_js, "text/javascript; charset=utf-8"),
        "editor.js": (PackageResources.editor_js, "text/javascript; charset=utf-8"),
        "gallery.css": (PackageResources.gallery_css, "text/css; charset=utf-8"),
    ]

    /// What the page may do: its own scripts, styles, images and media only (and the map's
    /// tiles from their server); no inline script, so a file name that got into the page
    /// as HTML could not run anyway.
    static func contentSecurityPolicy(map: MapSettings) -> String {
        let tiles = map.tileOrigin.map { " " + $0 } ?? ""
        return
            "default-src 'self'; img-src 'self' blob: data:\(tiles); media-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    }

    static func addRoutes(to router: Router<some RequestContext>, map: MapSettings) {
        let policy = contentSecurityPolicy(map: map)
        router.get("/") { _, _ in response("index.html", policy: policy) }
        router.get("/favicon.ico") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml"
            headers[.cacheControl] = "max-age=86400"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: icon)))
        }
        router.get("/static/:name") { _, context in
            response(try context.parameters.require("name"), policy: policy)
        }
        // Leaflet, as Debian's libjs-leaflet installs it.
        router.get("/static/leaflet/:name") { _, context in
            Leaflet.response(try context.parameters.require("name"), policy: policy)
        }
        router.get("/static/leaflet/images/:name") { _, context in
            Leaflet.response("images/" + (try context.parameters.require("name")), policy: policy)
        }
    }

    /// A camera lens: the tab's icon.
    static let icon = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="8" width="28" height="20" rx="4" fill="#3a5a8a"/><rect x="11" y="4" width="10" height="6" rx="2" fill="#3a5a8a"/><circle cx="16" cy="18" r="7" fill="#111"/><circle cx="16" cy="18" r="4" fill="#9cf"/></svg>"##

    static func response(_ name: String, policy: String) -> Response {
        guard let file = files[name] else { return Response(status: .notFound) }
        return response(bytes: file.bytes, type: file.type, policy: policy)
    }

    static func response(bytes: [UInt8], type: String, policy: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = policy
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
