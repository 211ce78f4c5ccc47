import Containers
import Foundation

/// Where each file of a library lives, relative to its folder. The one place that knows
/// the layout docs/reference/library-layout.md describes:
///
/// ```
/// catalog.sqlite                    the catalog, or instead
/// catalog.url                       where it is on PostgreSQL (a URL without a password)
/// originals/YYYY/MM/NAME            imported files, by capture month (undated/ without one)
/// derived/thumbnails/ab/SHA.jpg     a still's or movie's thumbnail (SHA-motion.jpg: a Motion Photo's poster)
/// derived/aux/ab/SHA/TYPE.png       a still's auxiliary images
/// derived/motion/ab/SHA.mp4         a Motion Photo's movie, cut out of the still SHA
/// derived/renders/ab/SHA.EXT        an edit's rendered file, named by its own sha256
/// derived/previews/ab/SHA.jpg       a still's or movie's preview for browsers (2048 px)
/// derived/proxies/ab/SHA.mov        a movie re-encoded as H.264 for browsers
/// incoming/PID-TAG/                 captures waiting to be imported
/// tmp/                              files being written
/// lost+found/TIME/originals/…       files no row named, moved aside by `camlib repair`
/// ```
/// `ab` is the first two characters of the sha256, so no folder grows past 256 entries.
public struct LibraryLayout: Sendable {
    public let root: URL

    public static let catalogName = "catalog.sqlite"

    public var catalog: URL { root.appendingPathComponent(Self.catalogName) }
    public static let catalogPointerName = "catalog.url"
    /// Where a library whose catalog is on PostgreSQL says where it is.
    public var catalogPointer: URL { root.appendingPathComponent(Self.catalogPointerName) }
    public var originals: URL { root.appendingPathComponent("originals") }
    public var derived: URL { root.appendingPathComponent("derived") }
    public var thumbnails: URL { derived.appendingPathComponent("thumbnails") }
    public var captureStaging: URL { root.appendingPathComponent("incoming") }
    public var temporary: URL { root.appendingPathComponent("tmp") }
    public var lostAndFound: URL { root.appendingPathComponent("lost+found") }

    /// The folders a writable library always has.
    var folders: [URL] { [root, originals, thumbnails, temporary] }

    /// Where an original named `name` goes: by the month it was captured.
    func original(named name: String, capturedAt time: CaptureTime?) -> URL {
        let month = time.map { String(format: "%04d/%02d", $0.year, $0.month) } ?? "undated"
        return originals.appendingPathComponent(month).appendingPathComponent(name)
    }

    /// A thumbnail of the file whose sha256 is `sha256` (`suffix`: of something in it).
    func thumbnail(of sha256: String, suffix: String = "") -> URL {
        thumbnails.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent("\(sha256)\(suffix).jpg")
    }

    /// The folder of the auxiliary images of the still whose sha256 is `sha256`.
    func auxiliaryImages(of sha256: String) -> URL {
        derived.appendingPathComponent("aux/\(sha256.prefix(2))/\(sha256)")
    }

    /// A Motion Photo's movie, cut out of the still whose sha256 is `sha256`.
    func motionMovie(of sha256: String, format: MediaFormat) -> URL {
        derived.appendingPathComponent("motion/\(sha256.prefix(2))/\(sha256).\(format == .quicktime ? "mov" : "mp4")")
    }

    /// An edit's render, named by its own sha256.
    func render(_ sha256: String, ext: String) -> URL {
        derived.appendingPathComponent("renders/\(sha256.prefix(2))/\(sha256).\(ext)")
    }

    /// A browser's preview of the file whose sha256 is `sha256`.
    func preview(of sha256: String) -> URL {
        derived.appendingPathComponent("previews/\(sha256.prefix(2))/\(sha256).jpg")
    }

    /// A browser-playable (H.264) copy of the movie whose sha256 is `sha256`.
    func proxy(of sha256: String) -> URL {
        derived.appendingPathComponent("proxies/\(sha256.prefix(2))/\(sha256).mov")
    }

    /// Where a catalog path points, when it stays inside the library folder: relative,
    /// without `..`, and not the folder itself. nil for anything else (an edited catalog
    /// must not make camlib touch files elsewhere).
    func confined(_ path: String) -> URL? {
        Self.isConfined(path) ? root.appendingPathComponent(path) : nil
    }

    /// Whether a catalog path stays inside the library folder: relative, and no part of
    /// it empty, `.` or `..`. Read byte by byte, without splitting: every resource of
    /// every listed asset is checked.
    static func isConfined(_ path: String) -> Bool {
        var length = 0, dots = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if length == 0 || (dots == length && dots <= 2) { return false }  // empty (or absolute), `.` or `..`
                (length, dots) = (0, 0)
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return length > 0 && !(dots == length && dots <= 2)
    }

    /// A path relative to the library folder, as the catalog stores it.
    func relative(_ url: URL) -> String {
        let base = root.standardizedFileURL.path
        let full = url.standardizedFileURL.path
        return full.hasPrefix(base + "/") ? String(full.dropFirst(base.count + 1)) : full
    }
}
