import Foundation
import Synchronization

/// Files sent to the library in pieces, as the gallery's uploads are (the tus protocol's
/// model): each waits in `tmp/uploads/` until it is whole, unseen by the catalog, and is
/// then imported like any file. A piece that is cut off is sent again from where the
/// store says the file ends. An upload nobody has added to for a day is abandoned and
/// removed by ``sweep(now:)``.
///
/// In `tmp/uploads/`: `ID.json` (what the browser said of the file, and its outcome once
/// imported) and `ID.part` (the bytes so far). A whole file is linked into
/// `batch-BATCH/NAME` for its import, so that the files a page sent together are
/// imported from one folder, as from a phone's: a Live Photo's halves and an `.AAE` find
/// each other by name there.
///
/// ```swift
/// let store = UploadStore(library: library)
/// let upload = try store.create(name: "IMG_0001.HEIC", length: 2_402_114, batch: "b1")
/// var end = try store.append(upload.id, at: 0, [UInt8](data))   // as pieces arrive
/// if let whole = try store.wholeFile(upload.id) { /* import whole.path */ }
/// ```
public final class UploadStore: Sendable {
    /// What the store keeps of an upload.
    public struct Upload: Codable, Sendable, Equatable {
        public var id: String
        /// The file's name as the browser gave it, made safe as a name in a folder.
        public var name: String
        public var length: Int64
        /// The uploads a page sent together.
        public var batch: String
        public var createdAt: String
        /// What the import did with it, once imported.
        public var result: ImportedFile?
    }

    public let folder: URL
    /// The largest file accepted.
    public let maxFileSize: Int64
    /// Bytes to leave free on the library's disk beyond the upload and its import's copy.
    public static let reserve: Int64 = 256 << 20
    /// An upload not added to for this long is abandoned.
    public static let abandonedAfter: TimeInterval = 86_400

    /// Uploads being written to now: one writer each.
    private let writing = Mutex<Set<String>>([])

    public init(library: PhotoLibrary, maxFileSize: Int64 = 16 << 30) {
        folder = library.layout.temporary.appendingPathComponent("uploads")
        self.maxFileSize = maxFileSize
    }

    // MARK: Making and reading

    /// A new, empty upload of `length` bytes, after checking its size against the limit
    /// and the disk's free space (the file, and the copy its import stages, must fit).
    public func create(name: String, length: Int64, batch: String?) throws -> Upload {
        guard length >= 0 else { throw UploadError.badLength }
        guard length <= maxFileSize else { throw UploadError.tooLarge(name: name, length: length, limit: maxFileSize) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let free = try Self.freeBytes(at: folder)
        let needed = 2 * length + Self.reserve
        guard needed <= free else { throw UploadError.noSpace(name: name, length: length, free: free) }
        let upload = Upload(
            id: UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""), name: Self.safeName(name), length: length,
            batch: batch.flatMap(Self.safeBatch) ?? "single", createdAt: catalogTime(Date()))
        guard FileManager.default.createFile(atPath: partURL(upload.id).path, contents: nil) else {
            throw UploadError.cannotWrite(name: upload.name, detail: String(cString: strerror(errno)))
        }
        do {
            try save(upload)
        } catch {
            unlink(partURL(upload.id).path)
            throw error
        }
        return upload
    }

    /// The upload `id`; nil for an id the store does not hold (never made, removed, or
    /// abandoned).
    public func upload(_ id: String) throws -> Upload? {
        guard Self.isID(id), let data = FileManager.default.contents(atPath: metadataURL(id).path) else { return nil }
        return try JSONDecoder().decode(Upload.self, from: data)
    }

    /// How many bytes of `id` the store holds: where the next piece starts.
    public func offset(_ id: String) throws -> Int64 {
        var info = stat()
        guard Self.isID(id), stat(partURL(id).path, &info) == 0 else {
            // Imported and cleared: all of it arrived.
            if let upload = try upload(id), upload.result != nil { return upload.length }
            throw UploadError.notFound(id: id)
        }
        return Int64(info.st_size)
    }

    // MARK: Writing

    /// Runs `body` as the one writer of `id`; throws ``UploadError/busy(id:)`` while another
    /// is (a piece sent again before the server saw the first one's connection end).
    public func exclusively<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        guard writing.withLock({ $0.insert(id).inserted }) else { throw UploadError.busy(id: id) }
        defer { _ = writing.withLock { $0.remove(id) } }
        return try await body()
    }

    /// Writes `bytes` at `offset`, which must be where the file ends now; returns the new end.
    @discardableResult
    public func append(_ id: String, at offset: Int64, _ bytes: [UInt8]) throws -> Int64 {
        guard let upload = try upload(id) else { throw UploadError.notFound(id: id) }
        let fd = open(partURL(id).path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw UploadError.notFound(id: id) }
            throw UploadError.cannotWrite(name: upload.name, detail: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw UploadError.cannotWrite(name: upload.name, detail: String(cString: strerror(errno))) }
        guard Int64(info.st_size) == offset else { throw UploadError.wrongOffset(id: id, given: offset, actual: Int64(info.st_size)) }
        guard offset + Int64(bytes.count) <= upload.length else { throw UploadError.tooLong(name: upload.name, length: upload.length) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written)) }
            if n < 0 {
                if errno == EINTR { continue }
                let detail = String(cString: strerror(errno))
                // What was cut short goes: the file ends where the last whole piece did.
                _ = ftruncate(fd, off_t(offset))
                throw UploadError.cannotWrite(name: upload.name, detail: detail)
            }
            written += n
        }
        return offset + Int64(bytes.count)
    }

    /// The upload's file, linked into its batch's folder for its import, once all of it
    /// has arrived; nil before.
    public func wholeFile(_ id: String) throws -> URL? {
        guard let upload = try upload(id), upload.result == nil, try offset(id) == upload.length else { return nil }
        let batchFolder = folder.appendingPathComponent("batch-\(upload.batch)")
        try FileManager.default.createDirectory(at: batchFolder, withIntermediateDirectories: true)
        // Under its own name; in a folder of its own when another file of the batch has it.
        for candidate in [batchFolder, batchFolder.appendingPathComponent(upload.id)] {
            try FileManager.default.createDirectory(at: candidate, withIntermediateDirectories: true)
            let target = candidate.appendingPathComponent(upload.name)
            if link(partURL(id).path, target.path) == 0 { return target }
            if errno == EEXIST, (try? Self.sameFile(target, partURL(id))) == true { return target }
            guard errno == EEXIST else { throw UploadError.cannotWrite(name: upload.name, detail: String(cString: strerror(errno))) }
        }
        throw UploadError.cannotWrite(name: upload.name, detail: "its name is taken in its batch's folder")
    }

    /// Records what the import did with `id`'s file and removes the file; the record
    /// stays (for the page to ask) until the upload is abandoned.
    public func finish(_ id: String, file: URL, result: ImportedFile) throws {
        guard var upload = try upload(id) else { throw UploadError.notFound(id: id) }
        upload.result = result
        try save(upload)
        unlink(file.path)
        unlink(partURL(id).path)
        // The batch's folder (and a file's own folder in it) go when empty.
        let batchFolder = folder.appendingPathComponent("batch-\(upload.batch)")
        if file.deletingLastPathComponent().path != batchFolder.path { rmdir(file.deletingLastPathComponent().path) }
        rmdir(batchFolder.appendingPathComponent(upload.id).path)
        rmdir(batchFolder.path)
    }

    /// Removes `id` and its bytes (the tus protocol's termination).
    public func remove(_ id: String) throws {
        guard let upload = try upload(id) else { throw UploadError.notFound(id: id) }
        unlink(partURL(id).path)
        let batchFolder = folder.appendingPathComponent("batch-\(upload.batch)")
        for linked in [batchFolder.appendingPathComponent(upload.name), batchFolder.appendingPathComponent(upload.id).appendingPathComponent(upload.name)] {
            if (try? Self.sameFile(linked, partURL(id))) == true { unlink(linked.path) }
        }
        unlink(metadataURL(id).path)
    }

    /// Removes the uploads nobody has added to for ``abandonedAfter``, and the links of
    /// imports a stopped server left half-way (their uploads stay, to be imported when
    /// asked for again). Returns how many uploads went.
    @discardableResult
    public func sweep(now: Date = Date()) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix("batch-") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        for name in names where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            guard Self.isID(id) else { continue }
            let touched = [partURL(id), metadataURL(id)].compactMap { Self.modified($0) }.max() ?? .distantPast
            guard now.timeIntervalSince(touched) > Self.abandonedAfter else { continue }
            unlink(partURL(id).path)
            unlink(metadataURL(id).path)
            removed += 1
        }
        // A .part whose record is gone (a crash between the two).
        for name in names where name.hasSuffix(".part") && !names.contains(String(name.dropLast(5)) + ".json") {
            unlink(folder.appendingPathComponent(name).path)
        }
        return removed
    }

    /// When an upload that has not arrived whole stops being kept.
    public func expires(_ id: String) -> Date? {
        Self.modified(partURL(id)).map { $0.addingTimeInterval(Self.abandonedAfter) }
    }

    // MARK: Files

    private func partURL(_ id: String) -> URL { folder.appendingPathComponent("\(id).part") }
    private func metadataURL(_ id: String) -> URL { folder.appendingPathComponent("\(id).json") }

    private func save(_ upload: Upload) throws {
        do {
            try JSONEncoder().encode(upload).write(to: metadataURL(upload.id), options: .atomic)
        } catch {
            throw UploadError.cannotWrite(name: upload.name, detail: "\(error.localizedDescription)")
        }
    }

    /// An id as the store makes them: 32 lower-case hex digits (and never a path).
    public static func isID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A browser's file name as a name in a folder: its last component, without control
    /// characters or slashes, at most 200 bytes (keeping its extension).
    public static func safeName(_ given: String) -> String {
        let last = given.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = String(last.unicodeScalars.filter { $0.value >= 32 && $0.value != 127 }.map(Character.init))
        if name.isEmpty || name == "." || name == ".." { name = "upload" }
        while name.utf8.count > 200 {
            let ext = (name as NSString).pathExtension
            let stem = (name as NSString).deletingPathExtension
            name = String(stem.dropLast()) + (ext.isEmpty ? "" : "." + ext)
        }
        return name
    }

    /// A page's batch name, if it is letters, digits, `-` and `_` only (at most 64).
    static func safeBatch(_ given: String) -> String? {
        guard !given.isEmpty, given.utf8.count <= 64,
            given.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" })
        else { return nil }
        return given
    }

    static func freeBytes(at url: URL) throws -> Int64 {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { throw UploadError.cannotWrite(name: url.path, detail: String(cString: strerror(errno))) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    private static func modified(_ url: URL) -> Date? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    private static func sameFile(_ a: URL, _ b: URL) throws -> Bool {
        var x = stat(), y = stat()
        guard stat(a.path, &x) == 0, stat(b.path, &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }
}
