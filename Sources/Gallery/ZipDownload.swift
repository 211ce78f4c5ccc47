import Containers
import Foundation
import HummingbirdCore
import Library
import NIOCore
import Synchronization

/// The bytes of a download's ZIP, in order, a megabyte at a time: local headers, files'
/// bytes read straight into the buffer sent, data descriptors, the central directory. A
/// file whose CRC-32 the catalog records is sent as it is read; any other is checksummed
/// on the way. Each chunk is read on a blocking thread while the one before it is being
/// sent (``send(to:)``), so the disk and the connection work at once.
final class ZipDownload: Sendable {
    /// Bytes per chunk: a write carries several small photos, and a download holds little
    /// memory (docs/performance.md has the figures).
    static let chunkSize = 1 << 20

    let length: UInt64
    private let state: Mutex<State>

    init(_ files: [Exporter.DownloadFile]) {
        let zip = ZipStream(entries: files.map { ZipStream.Entry(name: $0.name, size: UInt64($0.bytes), modified: $0.modified, crc32: $0.crc32) })
        length = zip.length
        state = Mutex(State(zip: zip, files: files))
    }

    deinit { state.withLock { $0.closeFile() } }

    /// Sends the whole archive to `writer`, reading each chunk as the one before is written.
    func send(to writer: inout some ResponseBodyWriter) async throws {
        var next = Task { try await Blocking.run { try self.nextChunk() } }
        while let chunk = try await next.value {
            next = Task { try await Blocking.run { try self.nextChunk() } }
            do {
                try await writer.write(chunk)
            } catch {
                // The connection went: the read under way finishes before the file closes.
                _ = try? await next.value
                throw error
            }
        }
    }

    /// The next chunk of the archive; nil after its last byte.
    private func nextChunk() throws -> ByteBuffer? {
        try state.withLock { try $0.next(upTo: Self.chunkSize) }
    }

    private struct State: ~Copyable {
        var zip: ZipStream
        let files: [Exporter.DownloadFile]
        /// The entry being sent, and where in it: its header is sent when `offset` is nil.
        var index = 0
        var offset: Int64?
        var fd: Int32 = -1
        var crc = CRC32()
        var ended = false
        let allocator = ByteBufferAllocator()

        mutating func next(upTo size: Int) throws -> ByteBuffer? {
            guard !ended else { return nil }
            var buffer = allocator.buffer(capacity: size)
            while buffer.readableBytes < size {
                guard index < files.count else {
                    buffer.writeBytes(zip.end())
                    ended = true
                    break
                }
                let file = files[index]
                guard let at = offset else {
                    buffer.writeBytes(zip.localHeader(index))
                    fd = open(file.path, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else { throw DownloadError.unreadable(file: file, detail: String(cString: strerror(errno))) }
                    (offset, crc) = (0, CRC32())
                    continue
                }
                if at < file.bytes {
                    let want = Int(min(Int64(size - buffer.readableBytes), file.bytes - at))
                    var got = 0
                    let checksummed = zip.needsDescriptor(index)
                    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { space in
                        got = pread(fd, space.baseAddress, want, off_t(at))
                        if got > 0, checksummed { crc.update(UnsafeRawBufferPointer(rebasing: space[0..<got])) }
                        return max(got, 0)
                    }
                    if got < 0 && errno == EINTR { continue }
                    guard got > 0 else {
                        throw DownloadError.unreadable(file: file, detail: got == 0 ? "it is shorter than it was" : String(cString: strerror(errno)))
                    }
                    offset = at + Int64(got)
                    continue
                }
                if zip.needsDescriptor(index) { buffer.writeBytes(zip.dataDescriptor(index, crc: crc.value)) }
                closeFile()
                (index, offset) = (index + 1, nil)
            }
            return buffer
        }

        mutating func closeFile() {
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }
}
