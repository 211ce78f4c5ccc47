import Foundation
import HTTPTypes
import Hummingbird
import Library
import NIOCore

/// Uploads, by the tus protocol 1.0.0 (core, creation, creation-with-upload, termination,
/// expiration): a file
/// is made with its length, sent in pieces that each say where they start, and after a
/// dropped connection the page asks where the file ends and goes on from there. The
/// protocol is the one resumable-upload clients (tus-js-client, TUSKit on iOS, Uppy)
/// speak, so a phone app can send to the gallery too.
///
/// ```
/// OPTIONS /api/uploads                 the protocol's version, extensions and largest file
/// POST    /api/uploads                 Upload-Length, Upload-Metadata: filename, batch, sha256, and
///                                      the first piece as its body (creation-with-upload), or none;
///                                      201 and Location; 200 and the asset when the sha256 is known
/// HEAD    /api/uploads/ID              Upload-Offset: where the next piece starts
/// PATCH   /api/uploads/ID              a piece (application/offset+octet-stream) at Upload-Offset;
///                                      the last one starts the file's import
/// GET     /api/uploads/ID[?wait=1]     the upload as JSON, with what the import did once whole
///                                      (with wait=1, once its import has ended)
/// GET     /api/uploads?ids=ID,…&wait=1 several, once at least one of them is imported (20 s at most)
/// DELETE  /api/uploads/ID              cancelled: its bytes go
/// GET     /api/known-sizes?bytes=N,…   which of these sizes the library's originals have: the
///                                      page hashes only files of those sizes to send sha256
/// ```
///
/// Every method but HEAD and GET needs the page's write header, as every change does.
extension GalleryAPI {
    static let tusVersion = "1.0.0"

    /// What the page is told of an upload.
    struct UploadState: Encodable, Sendable {
        var id: String?
        var name: String
        var length: Int64
        var offset: Int64
        /// imported, duplicate, attached, skipped or failed, once whole; nil before.
        var outcome: String?
        var asset: Int64?
        var paired: Bool?
        var message: String?

        init(_ upload: UploadStore.Upload, offset: Int64) {
            id = upload.id
            name = upload.name
            length = upload.length
            self.offset = offset
            outcome = upload.result?.outcome.rawValue
            asset = upload.result?.asset
            paired = upload.result?.paired
            message = upload.result?.message
        }

        /// A file found in the library by its hash: nothing was sent.
        init(known name: String, length: Int64, asset: Int64) {
            self.name = name
            self.length = length
            offset = 0
            outcome = ImportedFile.Outcome.duplicate.rawValue
            self.asset = asset
        }
    }

    func addUploadRoutes(to router: Router<some RequestContext>) {
        let store = uploads.store
        router.on("/api/uploads", method: .options) { _, _ in
            var headers = Self.tusHeaders()
            headers[HTTPField.Name("Tus-Version")!] = Self.tusVersion
            headers[HTTPField.Name("Tus-Extension")!] = "creation,creation-with-upload,termination,expiration"
            headers[HTTPField.Name("Tus-Max-Size")!] = String(store.maxFileSize)
            return Response(status: .noContent, headers: headers)
        }
        router.post("/api/uploads") { request, _ in
            try Self.checkTusVersion(request)
            try refuseIfReadOnly()
            guard let length = request.headers[HTTPField.Name("Upload-Length")!].flatMap({ Int64($0) }), length >= 0 else {
                throw HTTPError(.badRequest, message: "an upload needs Upload-Length, its size in bytes (deferred lengths are not supported)")
            }
            let metadata = Self.uploadMetadata(request.headers[HTTPField.Name("Upload-Metadata")!] ?? "")
            let name = metadata["filename"] ?? metadata["name"] ?? "upload"
            let library = self.library
            if let sha256 = metadata["sha256"], let asset = try await Blocking.run({ try library.asset(holdingOriginal: sha256) }) {
                var response = try jsonResponse(UploadState(known: UploadStore.safeName(name), length: length, asset: asset))
                response.headers[HTTPField.Name("Tus-Resumable")!] = Self.tusVersion
                return response
            }
            let upload = try await Self.answering { try await Blocking.run { try store.create(name: name, length: length, batch: metadata["batch"]) } }
            var headers = Self.tusHeaders()
            headers[.location] = "/api/uploads/\(upload.id)"
            if let expires = store.expires(upload.id) { headers[HTTPField.Name("Upload-Expires")!] = Self.httpDate(expires) }
            // creation-with-upload: the first piece (a small file whole) in the same request.
            if request.headers[.contentType] == "application/offset+octet-stream" {
                let end = try await Self.answering {
                    try await store.exclusively(upload.id) {
                        let end = try await Self.receive(request.body, into: upload.id, at: 0, store: store)
                        if let whole = try await Blocking.run({ try store.wholeFile(upload.id) }) { uploads.imports.start(upload.id, whole) }
                        return end
                    }
                }
                headers[HTTPField.Name("Upload-Offset")!] = String(end)
            }
            return Response(status: .created, headers: headers)
        }
        router.head("/api/uploads/:id") { request, context in
            try Self.checkTusVersion(request)
            let id = try context.parameters.require("id")
            let (upload, offset) = try await Self.answering {
                try await Blocking.run { () throws -> (UploadStore.Upload, Int64) in
                    guard let upload = try store.upload(id) else { throw UploadError.notFound(id: id) }
                    return (upload, try store.offset(id))
                }
            }
            var headers = Self.tusHeaders()
            headers[HTTPField.Name("Upload-Offset")!] = String(offset)
            headers[HTTPField.Name("Upload-Length")!] = String(upload.length)
            if upload.result == nil, let expires = store.expires(id) { headers[HTTPField.Name("Upload-Expires")!] = Self.httpDate(expires) }
            return Response(status: .ok, headers: headers)
        }
        router.patch("/api/uploads/:id") { request, context in
            try Self.checkTusVersion(request)
            try refuseIfReadOnly()
            let id = try context.parameters.require("id")
            guard request.headers[.contentType] == "application/offset+octet-stream" else {
                throw HTTPError(.unsupportedMediaType, message: "send a piece as application/offset+octet-stream")
            }
            guard let offset = request.headers[HTTPField.Name("Upload-Offset")!].flatMap({ Int64($0) }) else {
                throw HTTPError(.badRequest, message: "a piece needs Upload-Offset, the byte it starts at")
            }
            let end = try await Self.answering {
                try await store.exclusively(id) {
                    let held = try await Blocking.run { try store.offset(id) }
                    guard held == offset else { throw UploadError.wrongOffset(id: id, given: offset, actual: held) }
                    let end = try await Self.receive(request.body, into: id, at: offset, store: store)
                    // Whole: imported while the page sends the next file (GET …?wait=1 hears how).
                    if let whole = try await Blocking.run({ try store.wholeFile(id) }) { uploads.imports.start(id, whole) }
                    return end
                }
            }
            var headers = Self.tusHeaders()
            headers[HTTPField.Name("Upload-Offset")!] = String(end)
            return Response(status: .noContent, headers: headers)
        }
        router.get("/api/uploads/:id") { request, context in
            let id = try context.parameters.require("id")
            let wait = request.uri.queryParameters["wait"] == "1"
            let imports = uploads.imports
            let state = try await Self.answering { () async throws -> UploadState in
                guard let upload = try await Blocking.run({ try store.upload(id) }) else { throw UploadError.notFound(id: id) }
                let offset = try await Blocking.run { try store.offset(id) }
                guard upload.result == nil, offset == upload.length else { return UploadState(upload, offset: offset) }
                // Whole but not imported: being imported now, or its import was lost (the
                // gallery stopped meanwhile) and starts again.
                if !imports.isImporting(id), let whole = try await Blocking.run({ try store.wholeFile(id) }) { imports.start(id, whole) }
                guard wait, let result = await imports.outcome(id) else {
                    return UploadState(try await Blocking.run { try store.upload(id) } ?? upload, offset: offset)
                }
                var done = upload
                done.result = result
                return UploadState(done, offset: offset)
            }
            return try jsonResponse(state)
        }
        router.get("/api/uploads") { request, _ in
            // Several uploads at once, for a page following many imports with one request
            // (a request each would take the browser's few connections to the gallery).
            let ids = (request.uri.queryParameters["ids"].map(String.init) ?? "").split(separator: ",").map(String.init).filter(UploadStore.isID)
            guard !ids.isEmpty, ids.count <= 1000 else { throw HTTPError(.badRequest, message: "name 1 to 1000 uploads: ids=ID,…") }
            let wait = request.uri.queryParameters["wait"] == "1"
            let imports = uploads.imports
            let deadline = Date().addingTimeInterval(20)
            while true {
                let seen = imports.outcomes
                let states = try await Blocking.run { () throws -> [UploadState] in
                    try ids.compactMap { id in try store.upload(id).map { UploadState($0, offset: try store.offset(id)) } }
                }
                let imported = states.filter { $0.outcome != nil }
                // Whole but neither imported nor importing: its import was lost; again.
                for state in states where state.outcome == nil && state.offset == state.length {
                    if let id = state.id, !imports.isImporting(id), let whole = try await Blocking.run({ try store.wholeFile(id) }) { imports.start(id, whole) }
                }
                if !wait || !imported.isEmpty || Date() > deadline { return try jsonResponse(["uploads": states]) }
                // Read again when an import ends: any upload's, not only these (few uploads
                // at a time, and a record read is cheap).
                await imports.nextOutcome(after: seen, within: deadline.timeIntervalSinceNow)
            }
        }
        router.get("/api/known-sizes") { request, _ in
            let given = (request.uri.queryParameters["bytes"].map(String.init) ?? "").split(separator: ",")
            let sizes = given.compactMap { Int64($0) }.filter { $0 >= 0 }
            guard sizes.count == given.count, !sizes.isEmpty, sizes.count <= 1000 else {
                throw HTTPError(.badRequest, message: "name 1 to 1000 file sizes in bytes: bytes=N,…")
            }
            let library = self.library
            let known = try await Blocking.run { try library.originalSizes(among: sizes) }
            return try jsonResponse(["known": known.sorted()])
        }
        router.delete("/api/uploads/:id") { request, context in
            try Self.checkTusVersion(request)
            let id = try context.parameters.require("id")
            try await Self.answering { try await store.exclusively(id) { try await Blocking.run { try store.remove(id) } } }
            return Response(status: .noContent, headers: Self.tusHeaders())
        }
    }

    /// Writes the pieces of `body` from `offset` on, a megabyte at a time; returns where
    /// the file ends. A connection cut half-way keeps what arrived (the page goes on from
    /// there) and ends the request.
    private static func receive(_ body: RequestBody, into id: String, at offset: Int64, store: UploadStore) async throws -> Int64 {
        var end = offset
        var pending: [UInt8] = []
        pending.reserveCapacity(1 << 20)
        func flush() async throws {
            guard !pending.isEmpty else { return }
            let bytes = pending, at = end
            end = try await Blocking.run { try store.append(id, at: at, bytes) }
            pending.removeAll(keepingCapacity: true)
        }
        do {
            for try await buffer in body {
                pending.append(contentsOf: buffer.readableBytesView)
                if pending.count >= 1 << 20 { try await flush() }
            }
        } catch let error as UploadError {
            throw error
        } catch {
            try await flush()
            throw error
        }
        try await flush()
        return end
    }

    /// `body`, its ``UploadError``s as the HTTP errors the protocol gives them.
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as UploadError {
            let status: HTTPResponse.Status =
                switch error {
                case .badLength: .badRequest
                case .tooLarge: .contentTooLarge
                case .noSpace: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
                case .notFound: .notFound
                case .busy: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
                case .wrongOffset: .conflict
                case .tooLong: .contentTooLarge
                case .cannotWrite: .internalServerError
                }
            throw HTTPError(status, headers: tusHeaders(), message: error.description)
        }
    }

    private static func tusHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[HTTPField.Name("Tus-Resumable")!] = tusVersion
        headers[.cacheControl] = "no-store"
        return headers
    }

    /// A request of another version of the protocol is refused (412), as the protocol says.
    private static func checkTusVersion(_ request: Request) throws {
        guard let version = request.headers[HTTPField.Name("Tus-Resumable")!], version != tusVersion else { return }
        var headers = tusHeaders()
        headers[HTTPField.Name("Tus-Version")!] = tusVersion
        throw HTTPError(.preconditionFailed, headers: headers, message: "this gallery speaks tus \(tusVersion), not \(version)")
    }

    /// `Upload-Metadata`: pairs of a key and a base64 value, separated by commas.
    static func uploadMetadata(_ header: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for item in header.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first else { continue }
            let value = parts.count > 1 ? Data(base64Encoded: String(parts[1])).flatMap { String(data: $0, encoding: .utf8) } : ""
            if let value { pairs[String(key)] = value }
        }
        return pairs
    }

    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// The gallery's uploads: where they wait, and the imports that take them in.
struct Uploads: Sendable {
    let store: UploadStore
    let imports: UploadImports

    init(library: PhotoLibrary, maxFileSize: Int64, executable: String) {
        store = UploadStore(library: library, maxFileSize: maxFileSize)
        imports = UploadImports(library: library, store: store, executable: executable)
    }
}
