import Foundation

/// What happens in a folder tree, from the kernel (inotify): files written, moved in or
/// out, folders made, and the tree itself gone (deleted, or its disk unmounted). Every
/// folder of the tree is watched, and folders made in it are watched as they appear.
///
/// Owns one inotify descriptor; used from one thread.
final class FolderWatcher {
    enum Change: Equatable {
        /// Written to or made (`closed` false: it may still be growing), or closed by the
        /// program that wrote it (`closed` true).
        case written(String, closed: Bool)
        /// Moved in under this name; `from` is the name it had in the tree, if it was in it.
        case movedIn(String, from: String?)
        /// A folder made in the tree (its files, if any, come as it is scanned).
        case folderMade(String)
        /// The root is gone (deleted, moved away, or `unmounted`: its disk, mounted there
        /// or above it): nothing more comes from it.
        case rootGone(String, unmounted: Bool)
        /// The kernel's queue overflowed: changes were lost, and the tree should be scanned.
        case overflow
    }

    private let fd: Int32
    private var folders: [Int32: String] = [:]  // watch → folder path
    private var roots: Set<String> = []
    /// A move out waits for its move in (the same cookie) until the next read ends.
    private var movedOut: [UInt32: String] = [:]

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    init() throws {
        fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError.cannotWatch(path: "", detail: String(cString: strerror(errno))) }
    }

    deinit { close(fd) }

    /// Watches `root` and every folder under it; returns the folders now watched.
    @discardableResult
    func watch(root: String) throws -> [String] {
        roots.insert(root)
        return try watchTree(root)
    }

    /// Watches `folder` and its subfolders (links to folders are not followed).
    func watchTree(_ folder: String) throws -> [String] {
        var added: [String] = []
        var queue = [folder]
        while let next = queue.popLast() {
            let wd = inotify_add_watch(fd, next, Self.mask)
            guard wd >= 0 else {
                if next == folder {
                    let detail = errno == ENOSPC ? "the kernel's limit of watches is reached (fs.inotify.max_user_watches)" : String(cString: strerror(errno))
                    throw WatchError.cannotWatch(path: next, detail: detail)
                }
                continue  // gone meanwhile, or not a folder
            }
            folders[wd] = next
            added.append(next)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: next)) ?? [] {
                let path = next + "/" + name
                var info = stat()
                if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { queue.append(path) }
            }
        }
        return added
    }

    /// The changes that have come, waiting up to `timeout` seconds for the first.
    func changes(timeout: Double) -> [Change] {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return flushMovesOut() }
        var out: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let (wd, mask, cookie, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self), raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self), Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    out.append(.overflow)
                    continue
                }
                guard let folder = folders[wd] else { continue }
                let path = nameBytes.isEmpty ? folder : folder + "/" + String(decoding: nameBytes, as: UTF8.self)
                if mask & UInt32(IN_IGNORED) != 0 {
                    folders[wd] = nil
                    if roots.contains(folder) { out.append(.rootGone(folder, unmounted: false)) }
                    continue
                }
                if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_UNMOUNT)) != 0 {
                    if roots.contains(folder) { out.append(.rootGone(folder, unmounted: mask & UInt32(IN_UNMOUNT) != 0)) }
                    inotify_rm_watch(fd, wd)
                    folders[wd] = nil
                    continue
                }
                let isFolder = mask & UInt32(IN_ISDIR) != 0
                if mask & UInt32(IN_MOVED_FROM) != 0 {
                    if !isFolder { movedOut[cookie] = path }
                    continue
                }
                if isFolder {
                    if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
                        _ = try? watchTree(path)
                        out.append(.folderMade(path))
                    }
                    continue
                }
                if mask & UInt32(IN_MOVED_TO) != 0 {
                    out.append(.movedIn(path, from: movedOut.removeValue(forKey: cookie)))
                } else if mask & UInt32(IN_CLOSE_WRITE) != 0 {
                    out.append(.written(path, closed: true))
                } else if mask & (UInt32(IN_MODIFY) | UInt32(IN_CREATE)) != 0 {
                    out.append(.written(path, closed: false))
                }
            }
        }
        return out + flushMovesOut()
    }

    /// Moves out whose move in did not come: out of the tree. Nothing to do for them.
    private func flushMovesOut() -> [Change] {
        movedOut.removeAll()
        return []
    }

    /// Stops watching `root` and what is under it (it is gone).
    func forget(root: String) {
        roots.remove(root)
        for (wd, folder) in folders where folder == root || folder.hasPrefix(root + "/") {
            inotify_rm_watch(fd, wd)
            folders[wd] = nil
        }
    }
}

/// Why a folder cannot be watched.
public enum WatchError: Error, CustomStringConvertible {
    case cannotWatch(path: String, detail: String)
    case notAFolder(path: String)

    public var description: String {
        switch self {
        case .cannotWatch(let path, let detail): "cannot watch \(path): \(detail)"
        case .notAFolder(let path): "\(path) is not a folder: --watch watches folders"
        }
    }
}
