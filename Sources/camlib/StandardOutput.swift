#if canImport(Glibc)
import Glibc
#endif

/// Writes straight to file descriptor 1, unbuffered: a reader sees each write when it is
/// made (capture events, the server's address), and a listing goes out chunk by chunk.
///
/// Not through `FileHandle` and `Data`: making `Data` from a string's bytes first asks the
/// Swift runtime whether they are `ContiguousBytes`, a scan of every conformance in this
/// binary on first use, then copies them; a `camlib query` lives only a few milliseconds.
enum StandardOutput {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// All of `buffer`, a short write or an interrupted one continued; on an error (a
    /// closed pipe, a full disk) the rest is dropped, as `print` drops it.
    static func write(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard var next = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            let written = Glibc.write(1, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            next += written
            left -= written
        }
    }
}
