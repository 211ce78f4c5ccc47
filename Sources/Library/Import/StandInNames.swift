import Foundation

/// Files an import found whose paths are not UTF-8, each reachable through a symbolic
/// link with a UTF-8 name in the library's tmp/: `<pid>-<uuid>.names/<n>/<name>`, where
/// `<name>` is the file's name as ``RawPath/presented`` reads it and `<n>` numbers the
/// folders the files came from, so that the files of one folder stay side by side (Live
/// Photo halves and sidecars are matched by folder and name). Everything that opens a
/// file by path (the analysis workers, libheif, FFmpeg) follows the link. The catalog
/// records the presented name and folder. Removed when the import ends; a killed
/// import's are removed at the library's next open (`AtomicFile.removeAbandonedTemporaries`).
final class StandInNames {
    private let temporary: URL
    private var root: URL?
    private var folders: [RawPath: URL] = [:]
    /// A stand-in folder's path → the folder its files came from, presented.
    private var presentedFolders: [String: String] = [:]

    init(in temporary: URL) {
        self.temporary = temporary
    }

    /// A path with a UTF-8 name that opens `file`.
    func standIn(for file: RawPath) throws -> String {
        let root = try self.root ?? makeRoot()
        let source = file.folder
        let folder: URL
        if let known = folders[source] {
            folder = known
        } else {
            folder = root.appendingPathComponent(String(folders.count + 1))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            folders[source] = folder
            presentedFolders[folder.path] = source.presented
        }
        let link = folder.appendingPathComponent(RawPath.presented(name: file.name))
        let made = file.withCString { target in symlink(target, link.path) }
        guard made == 0 else {
            if errno == EEXIST {
                throw MediaAnalyzer.Failure(
                    reason: "its name (\(RawPath.escaped(name: file.name)) as bytes), read as Windows-1252 because it is not UTF-8, is the name of another file in its folder; rename one of them")
            }
            throw LibraryError.io(path: link.path, operation: "symlink", errno: errno)
        }
        return link.path
    }

    private func makeRoot() throws -> URL {
        let root = temporary.appendingPathComponent(AtomicFile.temporaryName(Self.suffix))
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        self.root = root
        return root
    }

    /// The ending of a stand-in folder's name in tmp/.
    static let suffix = ".names"

    /// The folder `path` came from: for a stand-in, the source folder presented.
    func sourceFolder(of path: String) -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return presentedFolders[folder] ?? folder
    }

    /// `path` as the user knows it: for a stand-in, the source's path presented.
    func presented(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        guard let folder = presentedFolders[url.deletingLastPathComponent().path] else { return path }
        return folder + "/" + url.lastPathComponent
    }

    /// Removes the links (never what they point at).
    func remove() {
        guard let root else { return }
        try? FileManager.default.removeItem(at: root)
        self.root = nil
        folders = [:]
    }
}
