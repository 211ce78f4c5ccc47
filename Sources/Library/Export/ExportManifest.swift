import Foundation

/// What camlib's exports to a folder wrote there: `.camlib-export.json` in the folder
/// given to `--to`, each file (relative to it) with its asset and bytes. A later export
/// trusts it for files whose size still matches instead of reading them again, and
/// `export --update` replaces only files it lists as written for the same asset and
/// unchanged since. A missing or unreadable manifest is an empty one: files are then
/// compared by their bytes.
/// `@unchecked Sendable`: an export reads and changes it from one thread; it is Sendable only to travel with the export's options.
public final class ExportManifest: @unchecked Sendable {
    // One export command at a time uses it, on one thread.
    public struct Entry: Codable, Sendable, Equatable {
        public var asset: Int64
        public var sha256: String
        public var bytes: Int64
    }

    public static let name = ".camlib-export.json"
    let folder: URL
    var files: [String: Entry]

    private struct Stored: Codable {
        var format = "org.camlib.export-manifest"
        var version = 1
        var files: [String: Entry]
    }

    /// The manifest of `folder`, empty when there is none (or it cannot be read).
    public init(folder: URL) {
        self.folder = folder.standardizedFileURL
        let url = folder.appendingPathComponent(Self.name)
        files = (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) }?.files ?? [:]
    }

    /// A file's key: its path relative to the folder.
    func key(_ url: URL) -> String {
        let base = folder.path + "/"
        let path = url.standardizedFileURL.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }

    /// Writes it back, atomically.
    public func save() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write([UInt8](try encoder.encode(Stored(files: files))), to: folder.appendingPathComponent(Self.name), overwrite: true)
    }
}
