import Containers
import Foundation

/// The files an import will look at, found under the paths the user gave.
struct ImportInputs {
    /// Photos and movies (and anything else that is not a sidecar: the analysis decides).
    var media: [String] = []
    /// `.AAE` adjustment sidecars and camlib's `.camlib.json` edit histories; attached
    /// after the media they belong to.
    var sidecars: [String] = []
    var skipped: [FileProblem] = []
    var errors: [FileProblem] = []

    var count: Int { media.count + sidecars.count + skipped.count + errors.count }

    /// Walks files and folders (recursively), never into `excluding` (the library).
    init(paths: [String], excluding library: URL) {
        let fm = FileManager.default
        let libraryPath = library.standardizedFileURL.resolvingSymlinksInPath().path
        var seen = Set<String>()
        for given in paths {
            let url = LibraryLocation.absolute(given)
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: url.path, isDirectory: &isDir) else {
                errors.append(FileProblem(path: url.path, message: url.path.contains("\u{FFFD}") ? Self.notUTF8 : "no such file or folder"))
                continue
            }
            if !isDir.boolValue {
                add(url, &seen)
                continue
            }
            let resolved = url.resolvingSymlinksInPath().path
            if resolved == libraryPath || resolved.hasPrefix(libraryPath + "/") {
                errors.append(FileProblem(path: url.path, message: "is inside the library itself; import from elsewhere"))
                continue
            }
            // A folder inside that cannot be read is an error naming it, not a silent gap.
            let unreadable = Unreadable()
            guard
                let walker = fm.enumerator(
                    at: url, includingPropertiesForKeys: [.isDirectoryKey], options: [],
                    errorHandler: { folder, error in
                        unreadable.problems.append(FileProblem(path: folder.path, message: "cannot read the folder: \(Self.describe(error))"))
                        return true
                    })
            else {
                errors.append(FileProblem(path: url.path, message: "cannot read the folder"))
                continue
            }
            var found: [URL] = []
            for case let item as URL in walker {
                let isFolder = (try? item.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
                if isFolder {
                    if item.resolvingSymlinksInPath().path == libraryPath { walker.skipDescendants() }
                    continue
                }
                found.append(item)
            }
            for item in found.sorted(by: { $0.path < $1.path }) { add(item, &seen) }
            errors += unreadable.problems
        }
    }

    /// What the folder walk could not read.
    private final class Unreadable: @unchecked Sendable {
        // Only the walk, on this thread, appends.
        var problems: [FileProblem] = []
    }

    /// An error from walking a folder, in words (the system's, without Foundation's wrapping).
    static func describe(_ error: any Error) -> String {
        FileAccessError.errno(of: error).map { String(cString: strerror($0)) } ?? (error as NSError).localizedDescription
    }

    /// A name that is not UTF-8 reaches camlib with U+FFFD in place of its bytes (from a
    /// folder's listing or the command line), and no file has that name.
    static let notUTF8 =
        "its name is not valid UTF-8 (shown with \u{FFFD} where its bytes are), so camlib cannot open it by name; rename it to UTF-8 (for example `convmv -f latin1 -t utf-8 --notest FILE`) and import it again"

    private mutating func add(_ url: URL, _ seen: inout Set<String>) {
        let path = url.standardizedFileURL.path
        guard seen.insert(path).inserted else { return }
        let name = url.lastPathComponent
        if path.contains("\u{FFFD}"), !FileManager.default.fileExists(atPath: path) {
            errors.append(FileProblem(path: path, message: Self.notUTF8))
            return
        }
        if name.hasPrefix(".") {
            // macOS leaves ._IMG_1234.HEIC (AppleDouble) and .DS_Store beside copied photos.
            skipped.append(FileProblem(path: path, message: "hidden file"))
        } else if MediaFormat.claimed(byExtension: url.pathExtension) == .appleAdjustment || name.hasSuffix(Exporter.HistorySidecar.suffix) {
            sidecars.append(path)
        } else {
            media.append(path)
        }
    }
}
