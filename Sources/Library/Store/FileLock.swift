import Foundation

/// An exclusive advisory lock (flock) on a file, held from init until the value is
/// released: other processes asking for it wait their turn. The lock file is created
/// when missing and left in place.
final class FileLock {
    private let descriptor: Int32

    init(_ path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open", errno: errno) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw LibraryError.io(path: path, operation: "flock", errno: code)
            }
        }
        descriptor = fd
    }

    deinit { close(descriptor) }  // closing the last descriptor releases the lock
}
