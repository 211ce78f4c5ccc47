import Containers
import Foundation

/// The files an import will look at, found under the paths the user gave.
///
/// Folders are walked as bytes (`opendir`/`readdir`): a name that is not UTF-8 is imported
/// through a stand-in (``StandInNames``) and recorded as ``RawPath/presented`` reads it.
struct ImportInputs {
    /// Photos and movies (and anything else that is not a sidecar: the analysis decides).
    var media: [String] = []
    /// `.AAE` adjustment sidecars and camlib's `.camlib.json` edit histories; attached
    /// after the media they belong to.
    var sidecars: [String] = []
    var skipped: [FileProblem] = []
    var errors: [FileProblem] = []
    /// The links through which files whose names are not UTF-8 are read.
    let standIns: StandInNames

    var count: Int { media.count + sidecars.count + skipped.count + errors.count }

    /// Walks files and folders (recursively), never into `excluding` (the library).
    /// Links to files are followed; links to folders are not (a link can loop).
    init(paths: [String], excluding library: URL, standInsIn temporary: URL) {
        standIns = StandInNames(in: temporary)
        let libraryPath = RawPath(library.standardizedFileURL.resolvingSymlinksInPath().path)
        let current = RawPath.current
        var seen = Set<RawPath>()
        for given in paths {
            let raw = RawPath.given(given).absolute(from: current)
            var info = stat()
            guard raw.withCString({ stat($0, &info) }) == 0 else {
                let message = errno == ENOENT ? "no such file or folder" : String(cString: strerror(errno))
                errors.append(FileProblem(path: raw.presented, message: message))
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                add(raw, &seen)
                continue
            }
            let resolved = Self.resolved(raw) ?? raw
            if resolved == libraryPath || resolved.bytes.starts(with: libraryPath.bytes + [UInt8(ascii: "/")]) {
                errors.append(FileProblem(path: raw.presented, message: "is inside the library itself; import from elsewhere"))
                continue
            }
            var found: [RawPath] = []
            walk(raw, library: libraryPath, into: &found)
            for file in found.sorted() { add(file, &seen) }
        }
    }

    /// The files under `folder`; a folder that cannot be read is an error naming it, not
    /// a silent gap.
    private mutating func walk(_ folder: RawPath, library: RawPath, into found: inout [RawPath]) {
        guard let dir = folder.withCString({ opendir($0) }) else {
            errors.append(FileProblem(path: folder.presented, message: "cannot read the folder: \(String(cString: strerror(errno)))"))
            return
        }
        defer { closedir(dir) }
        var folders: [RawPath] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 {
                    errors.append(FileProblem(path: folder.presented, message: "cannot read the folder: \(String(cString: strerror(errno)))"))
                }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            let path = folder.appending(name)
            var info = stat()
            guard path.withCString({ lstat($0, &info) }) == 0 else { continue }  // gone meanwhile
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if Self.resolved(path) != library { folders.append(path) }
            case S_IFLNK:
                var target = stat()
                if path.withCString({ stat($0, &target) }) == 0, (target.st_mode & S_IFMT) == S_IFDIR {
                    skipped.append(FileProblem(path: path.presented, message: "a link to a folder; not followed"))
                } else {
                    found.append(path)
                }
            default:
                found.append(path)
            }
        }
        for sub in folders { walk(sub, library: library, into: &found) }
    }

    /// `path` with every link resolved, as bytes.
    private static func resolved(_ path: RawPath) -> RawPath? {
        guard let real = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(real) }
        return RawPath(Array(UnsafeBufferPointer(start: UnsafeRawPointer(real).assumingMemoryBound(to: UInt8.self), count: strlen(real))))
    }

    private mutating func add(_ file: RawPath, _ seen: inout Set<RawPath>) {
        guard seen.insert(file).inserted else { return }
        let name = RawPath.presented(name: file.name)
        if name.hasPrefix(".") {
            // macOS leaves ._IMG_1234.HEIC (AppleDouble) and .DS_Store beside copied photos.
            skipped.append(FileProblem(path: file.presented, message: "hidden file"))
            return
        }
        let path: String
        if let text = file.string {
            path = text
        } else {
            do {
                path = try standIns.standIn(for: file)
            } catch {
                errors.append(FileProblem(path: file.presented, message: MediaAnalyzer.describe(error)))
                return
            }
        }
        if MediaFormat.claimed(byExtension: (name as NSString).pathExtension) == .appleAdjustment
            || name.hasSuffix(Exporter.HistorySidecar.suffix)
        {
            sidecars.append(path)
        } else {
            media.append(path)
        }
    }
}
