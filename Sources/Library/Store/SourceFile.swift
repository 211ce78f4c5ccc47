import Foundation

/// A file being imported, opened once: its first bytes, the whole of a still, the copy
/// of a movie are all read through one descriptor, so import reads each file from where
/// the user keeps it once (a card, a network share, a slow disk), and everything after
/// works on what was read (the still's bytes in memory, the movie's copy in the library).
final class SourceFile {
    let path: String
    private let fd: Int32
    /// Size and modification time when it was opened.
    let size: Int64
    private let modified: timespec

    /// Opens a regular file; anything else is refused (``FileReading/openRegularFile(_:)``).
    init(path: String) throws {
        let (fd, info) = try FileReading.openRegularFileWithInfo(path)
        (self.path, self.fd, size, modified) = (path, fd, Int64(info.st_size), info.st_mtim)
    }

    deinit { close(fd) }

    /// Its first `count` bytes (fewer for a shorter file).
    func bytes(count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let got = try out.withUnsafeMutableBytes { try read(into: $0, at: 0) }
        out.removeLast(count - got)
        return out
    }

    /// The whole file.
    func readAll() throws -> [UInt8] {
        let all = try bytes(count: Int(size))
        guard all.count == Int(size) else { throw LibraryError.changedDuringImport(path: path) }
        return all
    }

    /// Copies the file into a new temporary file in `directory`, hashing it on the way;
    /// `durable` as for ``AtomicFile/writeTemporary(_:in:readOnly:sha256:durable:)``.
    func copy(into directory: URL, readOnly: Bool, durable: Bool = true) throws -> AtomicFile.Temporary {
        let copy = try AtomicFile.streamTemporary(in: directory, readOnly: readOnly, durable: durable) { stream in
            try stream.copy(from: fd, path, offset: 0, size: size)
        }
        guard !changed else {
            unlink(copy.url.path)
            throw LibraryError.changedDuringImport(path: path)
        }
        return copy
    }

    /// Whether the file's size or modification time moved since it was opened (a file
    /// still being written, or rewritten while it was read).
    var changed: Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return true }
        return Int64(info.st_size) != size || info.st_mtim.tv_sec != modified.tv_sec || info.st_mtim.tv_nsec != modified.tv_nsec
    }

    /// Fills `buffer` from `offset` as far as the file goes; returns the bytes read.
    private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var got = 0
        while got < buffer.count {
            let n = pread(fd, buffer.baseAddress! + got, buffer.count - got, off_t(offset) + off_t(got))
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError.io(path: path, operation: "read", errno: errno)
            }
            if n == 0 { break }
            got += n
        }
        return got
    }
}
