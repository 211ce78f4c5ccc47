import Crypto
import Foundation

/// Reading files with plain POSIX calls: in 1 MB chunks, retrying on EINTR, with errors
/// that name the file.
enum FileReading {
    /// Calls `body` with each successive chunk of the file.
    static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
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
        var hasher = SHA256()
        try forEachChunk(of: path) { hasher.update(bufferPointer: $0) }
        return hasher.finalize().hexString
    }
}
