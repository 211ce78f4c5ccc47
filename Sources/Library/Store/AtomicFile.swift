import Containers
import Crypto
import Foundation
import Synchronization

/// Writes that a crash cannot leave half-done: data goes to a temporary file in the
/// library's `tmp/` folder, is fsynced, and is then linked into place under a name that
/// did not exist before (never overwriting), and the folder is fsynced.
///
/// An import's analysis workers write their staged files with `durable: false` and the
/// import fsyncs them (``makeDurable(_:)``) just before it links them: a worker waiting
/// for the disk leaves its core idle, the import's own thread does not.
enum AtomicFile {
    /// A temporary file and what was written to it; fsynced unless written with
    /// `durable: false`.
    struct Temporary {
        let url: URL
        let sha256: String
        let bytes: Int64
        /// ZIP's checksum of the same bytes, computed with the hash (nil for a staged file
        /// described by an analysis that did not record it).
        let crc32: UInt32?
    }

    /// Copies `source` into a new temporary file in `directory`, hashing what it copies.
    static func copyToTemporary(from source: URL, in directory: URL, readOnly: Bool) throws -> Temporary {
        let (url, output) = try createTemporary(in: directory)
        var ok = false
        defer {
            close(output)
            if !ok { unlink(url.path) }
        }
        var stream = Stream(fd: output, path: url.path)
        try FileReading.forEachChunk(of: source.path) { try stream.write($0) }
        try finish(output, path: url.path, readOnly: readOnly)
        ok = true
        return stream.temporary(url)
    }

    /// Writes `data` into a new temporary file in `directory`; `sha256` saves hashing
    /// again when the caller already knows it. `durable: false` leaves the fsync to
    /// whoever links it into place (``makeDurable(_:)``).
    static func writeTemporary(
        _ data: [UInt8], in directory: URL, readOnly: Bool = false, sha256: String? = nil, durable: Bool = true
    ) throws -> Temporary {
        let (url, fd) = try createTemporary(in: directory)
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(url.path) }
        }
        try data.withUnsafeBytes { try writeAll(fd, $0, path: url.path) }
        try finish(fd, path: url.path, readOnly: readOnly, durable: durable)
        ok = true
        var crc = CRC32()
        data.withUnsafeBytes { crc.update($0) }
        return Temporary(url: url, sha256: sha256 ?? SHA256.hash(data: data).hexString, bytes: Int64(data.count), crc32: crc.value)
    }

    /// A temporary file being written piece by piece and hashed as it goes.
    struct Stream {
        fileprivate let fd: Int32
        fileprivate let path: String
        fileprivate var hasher = SHA256()
        fileprivate var crc = CRC32()
        fileprivate(set) var count: Int64 = 0

        fileprivate func temporary(_ url: URL) -> Temporary {
            Temporary(url: url, sha256: hasher.finalize().hexString, bytes: count, crc32: crc.value)
        }

        mutating func write(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { try write($0) }
        }

        mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
            hasher.update(bufferPointer: bytes)
            crc.update(bytes)
            try AtomicFile.writeAll(fd, bytes, path: path)
            count += Int64(bytes.count)
        }

        /// Copies `size` bytes at `offset` of the open file `source` (named `sourcePath`
        /// in errors), a megabyte at a time.
        mutating func copy(from source: Int32, _ sourcePath: String, offset: Int64, size: Int64) throws {
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            var done: Int64 = 0
            while done < size {
                let n = pread(source, buffer.baseAddress, Int(min(Int64(chunk), size - done)), off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw LibraryError.io(path: sourcePath, operation: "read", errno: n == 0 ? EIO : errno) }
                try write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                done += Int64(n)
            }
        }
    }

    /// A new temporary file in `directory` that `body` writes piece by piece (a movie of
    /// any size, never whole in memory); removed if `body` throws. `durable` as for
    /// ``writeTemporary(_:in:readOnly:sha256:durable:)``.
    static func streamTemporary(
        in directory: URL, readOnly: Bool = false, durable: Bool = true, _ body: (inout Stream) throws -> Void
    ) throws -> Temporary {
        let (url, fd) = try createTemporary(in: directory)
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(url.path) }
        }
        var stream = Stream(fd: fd, path: url.path)
        try body(&stream)
        try finish(fd, path: url.path, readOnly: readOnly, durable: durable)
        ok = true
        return stream.temporary(url)
    }

    /// Moves a temporary file to `destination`, or to `name-2.ext`, `name-3.ext`, … when
    /// that name is taken. Never replaces an existing file. Returns where it landed.
    /// `syncFolder: false` leaves fsyncing the folder to the caller, who publishes
    /// several files into a few folders and syncs each folder once. `adopting` says whether
    /// a file found under a taken name is this very file already (left by an earlier run
    /// killed before it recorded it): then that file is kept and returned. `reserved`
    /// says whether a free name is taken all the same (a catalog row names it, its file
    /// missing): it is passed over.
    static func publish(
        _ temporary: URL, to destination: URL, syncFolder: Bool = true, reserved: ((URL) throws -> Bool)? = nil, adopting: ((URL) -> Bool)? = nil
    ) throws -> URL {
        let folder = destination.deletingLastPathComponent()
        let ext = destination.pathExtension
        let stem = destination.deletingPathExtension().lastPathComponent
        var candidate = destination
        var n = 1
        while true {
            if try reserved?(candidate) != true {
                // link() fails with EEXIST instead of replacing, unlike rename().
                if try placing(in: folder, { link(temporary.path, candidate.path) }) == 0 { break }
                guard errno == EEXIST else { throw LibraryError.io(path: candidate.path, operation: "link", errno: errno) }
                if let adopting, adopting(candidate) { break }
            }
            n += 1
            candidate = folder.appendingPathComponent(ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)")
        }
        unlink(temporary.path)
        if syncFolder { try syncDirectory(folder) }
        return candidate
    }

    /// Moves a temporary file to `destination` unless a file is there already, which is
    /// then kept: for files named by what they were made from, which are the same
    /// whoever made them. Returns `destination`.
    @discardableResult
    static func publishIfAbsent(_ temporary: URL, to destination: URL) throws -> URL {
        let folder = destination.deletingLastPathComponent()
        defer { unlink(temporary.path) }
        if try placing(in: folder, { link(temporary.path, destination.path) }) != 0 {
            guard errno == EEXIST else { throw LibraryError.io(path: destination.path, operation: "link", errno: errno) }
            return destination
        }
        try syncDirectory(folder)
        return destination
    }

    /// Writes `data` to `destination` (anywhere, e.g. a user's output folder) through a
    /// fsynced temporary file beside it. Without `overwrite`, an existing file is an error
    /// and is left alone.
    static func write(_ data: [UInt8], to destination: URL, overwrite: Bool) throws {
        let folder = destination.deletingLastPathComponent()
        let temporary = try writeTemporary(data, in: folder)
        defer { unlink(temporary.url.path) }
        if overwrite {
            guard rename(temporary.url.path, destination.path) == 0 else {
                throw LibraryError.io(path: destination.path, operation: "rename", errno: errno)
            }
        } else if link(temporary.url.path, destination.path) != 0 {
            if errno == EEXIST { throw LibraryError.exists(path: destination.path) }
            throw LibraryError.io(path: destination.path, operation: "link", errno: errno)
        }
        try syncDirectory(folder)
    }

    /// Runs `place`, a link or rename into `folder` returning 0 or -1 with errno set,
    /// making the folder first. Emptying the trash removes the folders it empties: should
    /// that happen between the two, the folder is made again and `place` tried again.
    static func placing(in folder: URL, _ place: () -> Int32) throws -> Int32 {
        var result: Int32 = -1
        for _ in 0..<3 {
            try makeFolder(folder)
            result = place()
            if result == 0 || errno != ENOENT { break }
        }
        return result
    }

    /// Temporary files and folders (`.part`, `.names`) that a process killed half-way
    /// left in `folder`: on this host, those whose process no longer runs; from another
    /// host sharing the folder, where this one cannot see the process, those untouched
    /// for `othersAfter` seconds (a day). Deleted, since nothing links them any more; a
    /// folder of an import's stand-in links (`StandInNames`) loses the links only, never
    /// what they point at. Other files, even ending in `.part`, stay.
    static func removeAbandonedTemporaries(in folder: URL, othersAfter: TimeInterval = 86_400) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let me = owner.load(ordering: .relaxed)
        for name in names {
            guard let maker = TemporaryName(name) else { continue }
            let url = folder.appendingPathComponent(name)
            if maker.host == nil || maker.host == thisHost {
                guard maker.pid != getpid(), maker.pid != me, !PhotoLibrary.isRunning(maker.pid) else { continue }
            } else {
                guard let changed = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                    -changed.timeIntervalSinceNow > othersAfter
                else { continue }
            }
            if maker.isFolder {
                try? FileManager.default.removeItem(at: url)
            } else {
                unlink(url.path)
            }
        }
    }

    /// Who made a temporary file or folder, read from its name: `HOST-PID-UUID.part` or
    /// `.names` (`PID-UUID…`, with no host, from earlier camlib: this host's).
    struct TemporaryName {
        var host: String?
        var pid: Int32
        var isFolder: Bool

        init?(_ name: String) {
            let suffix = name.hasSuffix(".part") ? ".part" : name.hasSuffix(StandInNames.suffix) ? StandInNames.suffix : nil
            guard let suffix else { return nil }
            let stem = name.dropLast(suffix.count)
            guard stem.count > 37, UUID(uuidString: String(stem.suffix(36))) != nil else { return nil }
            let rest = stem.dropLast(37)
            guard stem.dropLast(36).last == "-" else { return nil }
            if let dash = rest.lastIndex(of: "-") {
                guard let pid = Int32(rest[rest.index(after: dash)...]) else { return nil }
                self.host = String(rest[..<dash])
                self.pid = pid
            } else {
                guard let pid = Int32(rest) else { return nil }
                self.host = nil
                self.pid = pid
            }
            isFolder = suffix != ".part"
        }
    }

    /// This machine's name as temporary names carry it.
    static let thisHost = ProcessInfo.processInfo.hostName.replacingOccurrences(of: "/", with: "_")

    /// A new temporary file or folder's name in the library's `tmp/` (or an export's
    /// folder): `HOST-PID-UUID` and `suffix`. The host and pid let a later run tell
    /// abandoned temporaries from those of a process still at work, here or on another
    /// machine sharing the library.
    static func temporaryName(_ suffix: String) -> String {
        "\(thisHost)-\(owner.load(ordering: .relaxed))-\(UUID().uuidString)\(suffix)"
    }

    /// Makes `folder` and whichever of its parents are missing, each one's entry made
    /// durable in the folder above it (a month's new folder in originals/ must survive a
    /// crash as surely as the file linked into it).
    static func makeFolder(_ folder: URL) throws {
        var missing: [URL] = []
        var next = folder.standardizedFileURL
        while access(next.path, F_OK) != 0, next.path != "/" {
            missing.append(next)
            next = next.deletingLastPathComponent()
        }
        guard !missing.isEmpty else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for made in missing.reversed() { try syncDirectory(made.deletingLastPathComponent()) }
    }

    /// Fsyncs files written with `durable: false`, before they are linked into place.
    static func makeDurable(_ paths: [String]) throws {
        for path in paths { try sync(path, flags: 0, what: "") }
    }

    /// Makes a directory entry change durable.
    static func syncDirectory(_ url: URL) throws {
        try sync(url.path, flags: O_DIRECTORY, what: " folder")
    }

    /// Opens `path` read-only and fsyncs it; errors say "open\(what)" or "fsync\(what)".
    private static func sync(_ path: String, flags: Int32, what: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | flags)
        guard fd >= 0 else { throw LibraryError.io(path: path, operation: "open" + what, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw LibraryError.io(path: path, operation: "fsync" + what, errno: errno) }
    }

    /// The process named in temporary files' names (`HOST-PID-UUID.part`), whose files
    /// ``removeAbandonedTemporaries(in:)`` leaves alone while it runs: this process, or,
    /// in an analysis worker, the import that started it (``stageForParent()``).
    private static let owner = Atomic<Int32>(getpid())

    /// From now on this process's temporary files are named after its parent: an
    /// analysis worker's staged files are the import's, which links them in, maybe after
    /// the worker has ended (Apple's renders wait for every other file); under the
    /// worker's own pid another camlib opening the library would sweep them meanwhile.
    static func stageForParent() {
        owner.store(getppid(), ordering: .relaxed)
    }

    private static func createTemporary(in directory: URL) throws -> (URL, Int32) {
        let url = directory.appendingPathComponent(temporaryName(".part"))
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LibraryError.io(path: url.path, operation: "create", errno: errno) }
        return (url, fd)
    }

    fileprivate static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError.io(path: path, operation: "write", errno: errno)
            }
            offset += n
        }
    }

    private static func finish(_ fd: Int32, path: String, readOnly: Bool, durable: Bool = true) throws {
        if readOnly, fchmod(fd, 0o444) != 0 { throw LibraryError.io(path: path, operation: "chmod", errno: errno) }
        guard durable else { return }
        guard fsync(fd) == 0 else { throw LibraryError.io(path: path, operation: "fsync", errno: errno) }
    }
}

extension Sequence where Element == UInt8 {
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in self {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Digest {
    var hexString: String { Array(self).hexString }
}
