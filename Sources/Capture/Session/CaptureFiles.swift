import Glibc

/// How capture puts files in place: written under `NAME.part`, fsynced, then linked to
/// their final name, which is never an existing file's. A reader sees the whole file or
/// none. (The library's `AtomicFile` does the same for imports; Capture sits below the
/// library and keeps its own two functions.)
enum CaptureFiles {
    static func write(_ bytes: [UInt8], to path: String) throws {
        let part = path + ".part"
        let fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(path, errno) }
        var failed: Int32?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    return
                }
                offset += n
            }
        }
        close(fd)
        if let failed {
            unlink(part)
            throw failure(path, failed)
        }
        try publish(part, as: path)
    }

    /// Makes the finished file `part` durable and gives it its final name `path`.
    static func publish(_ part: String, as path: String) throws {
        defer { unlink(part) }
        let fd = open(part, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, errno) }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw failure(path, code) }
        // link, not rename: an existing file of that name is never replaced.
        guard link(part, path) == 0 else { throw failure(path, errno) }
    }

    private static func failure(_ path: String, _ code: Int32) -> CaptureError {
        .cannotWrite(path, errno: code)
    }
}
