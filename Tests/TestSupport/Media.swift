import Foundation
import Testing

/// The real-media corpus in `../shared/media` (or `$CAMLIB_MEDIA`).
///
/// Outside CI a missing corpus skips the tests that need it, with a message saying so.
/// Under `CI=true` those tests run anyway and fail on the first missing file, because a
/// CI run without the corpus proves nothing.
public enum Media {
    /// The package root, found from this file's location.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["CAMLIB_MEDIA"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    }()

    public static var isPresent: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("MANIFEST.json").path)
    }

    public static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// For `.enabled(if: Media.shouldRun, Media.skipMessage)`.
    public static var shouldRun: Bool { isPresent || isRequired }
    public static let skipMessage: Comment =
        "skipped: the real-media corpus is not at \(root.path) (set CAMLIB_MEDIA, or place ../shared/media beside the checkout)"

    /// Absolute path of a corpus file, e.g. `Media.path("apple-live-photo/IMG_3582.HEIC")`.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// Files of a corpus folder, sorted, without hidden files.
    public static func files(in folder: String) throws -> [String] {
        let dir = root.appendingPathComponent(folder)
        guard FileManager.default.fileExists(atPath: dir.path) else {
            throw MissingMedia(path: dir.path)
        }
        return try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
            .map { dir.appendingPathComponent($0).path }
    }

    /// MANIFEST.json entries by their `file` (relative path).
    public static func manifest() throws -> [String: ManifestEntry] {
        let url = root.appendingPathComponent("MANIFEST.json")
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingMedia(path: url.path) }
        let entries = try JSONDecoder().decode([ManifestEntry].self, from: Data(contentsOf: url))
        return Dictionary(entries.map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

public struct MissingMedia: Error, CustomStringConvertible {
    public let path: String
    public init(path: String) { self.path = path }
    public var description: String { "the real-media corpus is missing \(path) (required under CI=true)" }
}

public struct ManifestEntry: Decodable, Sendable {
    public let file: String
    public let category: String
    public let sha256: String
    public let bytes: Int
    public let verified: String
}
