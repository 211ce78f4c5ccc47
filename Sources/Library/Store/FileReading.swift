import Crypto
import Foundation

/// Reading files with plain POSIX calls: in 1 MB chunks, retrying on EINTR, with errors
/// that name the file.
enum FileReading {
    /// Opens `path` for reading when it is a regular file (following a symbolic link);
    /// anything else is refused before a read: opening a FIFO would wait for a writer,
    /// and a device such as /dev/zero never ends. The caller closes the descriptor.
    static func openRegularFile(_ path: String) throws -> Int32 {
        try openRegularFileWithInfo(path).fd
    }

    /// ``openRegularFile(_:)``, with what fstat says of it.
    static func openRegularFileWithInfo(_ path: String) throws -> (fd: Int32, info: stat) {
        try openRegularFileWithInfo(RawPath(path), named: path)
    }

    /// ``openRegularFileWithInfo(_:)`` for a path given as bytes (which need not be
    /// UTF-8); errors name it `path`.
    static func openRegularFileWithInfo(_ raw: RawPath, named path: String) throws -> (fd: Int32, info: stat) {
        // O_NONBLOCK: opening a FIFO does not wait for a writer; cleared below.
        let fd = raw.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw LibraryError.io(path: path, operation: "fstat", errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw LibraryError.notAFile(path: path, kind: kind(of: info.st_mode))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, info)
    }

    /// What a file that is not a regular file is, in words.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "not a regular file"
        }
    }

    /// Calls `body` with each successive chunk of the file.
    static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try forEachChunk(of: RawPath(path), named: path, body)
    }

    /// ``forEachChunk(of:_:)`` for a path given as bytes; errors name it `path`.
    static func forEachChunk(of raw: RawPath, named path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = try openRegularFileWithInfo(raw, named: path).fd
        defer { close(fd) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError.io(path: path, operation: "read", errno: errno)
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The first `count` bytes (fewer for a shorter file).
    static func prefix(of path: String, count: Int) throws -> [UInt8] {
        let fd = try openRegularFile(path)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError.io(path: path, operation: "read", errno: errno)
            }
            if n == 0 { break }
            got += n
        }
        return Array(buffer.prefix(got))
    }

    /// The file's SHA-256, lower-case hex.
    static func sha256(of path: String) throws -> String {
        try sha256(of: RawPath(path), named: path)
    }

    /// ``sha256(of:)`` for a path given as bytes; errors name it `path`.
    static func sha256(of raw: RawPath, named path: String) throws -> String {
        var hasher = SHA256()
        try forEachChunk(of: raw, named: path) { hasher.update(bufferPointer: $0) }
        return hasher.finalize().hexString
    }

    /// The top-level ISOBMFF boxes of a file, from their headers alone: type, offset and
    /// size of each; nil when the file cannot be read or its boxes do not add up.
    static func topLevelBoxes(of path: String) -> [(type: String, offset: Int64, size: Int64)]? {
        guard let fd = try? openRegularFile(path) else { return nil }
        defer { close(fd) }
        var boxes: [(type: String, offset: Int64, size: Int64)] = []
        guard walkBoxes(fd, path, { boxes.append(($0, $1, $2)); return true }) else { return nil }
        return boxes
    }

    /// Walks the top-level boxes of the open file by their headers; `visit` (type, offset,
    /// size) returns false to stop. False when a header cannot be read or a box runs past
    /// the end before `visit` stopped.
    private static func walkBoxes(_ fd: Int32, _ path: String, _ visit: (String, Int64, Int64) -> Bool) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let end = Int64(info.st_size)
        var at: Int64 = 0
        while at + 8 <= end {
            guard let header = try? bytes(fd, path, offset: at, count: 8) else { return false }
            var size = Int64(header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if size == 1 {
                guard let large = try? bytes(fd, path, offset: at + 8, count: 8) else { return false }
                size = Int64(bitPattern: large.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if size == 0 {
                size = end - at
            }
            guard size >= 8, at + size <= end else { return false }
            guard visit(String(decoding: header[4..<8], as: UTF8.self), at, size) else { return true }
            at += size
        }
        return true
    }

    /// `count` bytes at `offset` of the open file `fd` (named `path` in errors).
    static func bytes(_ fd: Int32, _ path: String, offset: Int64, count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset) + off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw LibraryError.io(path: path, operation: "read", errno: n == 0 ? EIO : errno) }
            got += n
        }
        return buffer
    }

    /// The bytes of the first top-level ISOBMFF box of `type` (`moov`), found by reading
    /// box headers only, so a movie's media data is never read, and the file's size; nil
    /// when there is none, the file is damaged, or the box is larger than `limit`.
    static func topLevelBox(_ type: String, of path: String, limit: Int = 64 << 20) -> (box: [UInt8], fileSize: Int)? {
        guard let fd = try? openRegularFile(path) else { return nil }
        defer { close(fd) }
        var found: (offset: Int64, size: Int64)?
        guard walkBoxes(fd, path, { name, offset, size in
            if name == type { found = (offset, size) }
            return found == nil
        }), let found, found.size <= Int64(limit) else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, let box = try? bytes(fd, path, offset: found.offset, count: Int(found.size)) else { return nil }
        return (box, Int(info.st_size))
    }
}

/// For commands that read a file a person names: refuses anything but a regular file
/// (a FIFO, /dev/zero, a folder) before it is read, with an error that says what it is.
public enum RegularFile {
    /// A missing file passes: the command that reads it says so in its own words.
    public static func require(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw LibraryError.notAFile(path: path, kind: FileReading.kind(of: info.st_mode)) }
    }
}
