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
        "gallery.css": (PackageResources.gallery_css, "text/css; charset=utf-8"),
    ]

    /// What the page may do: its own scripts, styles, images and media only; no inline
    /// script, so a file name that got into the page as HTML could not run anyway.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; media-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

    static func addRoutes(to router: Router<some RequestContext>) {
        router.get("/") { _, _ in response("index.html") }
        router.get("/favicon.ico") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml"
            headers[.cacheControl] = "max-age=86400"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: icon)))
        }
        router.get("/static/:name") { _, context in
            response(try context.parameters.require("name"))
        }
    }

    /// A camera lens: the tab's icon.
    static let icon = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="8" width="28" height="20" rx="4" fill="#3a5a8a"/><rect x="11" y="4" width="10" height="6" rx="2" fill="#3a5a8a"/><circle cx="16" cy="18" r="7" fill="#111"/><circle cx="16" cy="18" r="4" fill="#9cf"/></svg>"##

    static func response(_ name: String) -> Response {
        guard let file = files[name] else { return Response(status: .notFound) }
        var headers = HTTPFields()
        headers[.contentType] = file.type
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
