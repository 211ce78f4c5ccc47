import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import Library
import Testing
import TestSupport

@testable import Gallery

/// Uploads by the tus protocol, through the gallery's router: made, sent in pieces, asked
/// where they end, refused with the protocol's statuses, and imported once whole.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct GalleryUploadTests {
    static let write: HTTPFields = [HTTPField.Name("X-Camlib-Request")!: "1", HTTPField.Name("Tus-Resumable")!: "1.0.0"]

    static func creating(_ length: Int, name: String, batch: String = "b1", sha256: String? = nil) -> HTTPFields {
        var headers = write
        headers[HTTPField.Name("Upload-Length")!] = String(length)
        var metadata = "filename \(Data(name.utf8).base64EncodedString()),batch \(Data(batch.utf8).base64EncodedString())"
        if let sha256 { metadata += ",sha256 \(Data(sha256.utf8).base64EncodedString())" }
        headers[HTTPField.Name("Upload-Metadata")!] = metadata
        return headers
    }

    static func piece(at offset: Int) -> HTTPFields {
        var headers = write
        headers[HTTPField.Name("Upload-Offset")!] = String(offset)
        headers[.contentType] = "application/offset+octet-stream"
        return headers
    }

    /// Sends `bytes` as a new upload in pieces of `piece` bytes; returns its URL.
    static func send(_ bytes: [UInt8], name: String, piece: Int, _ client: some TestClientProtocol) async throws -> String {
        let location = try await client.execute(uri: "/api/uploads", method: .post, headers: creating(bytes.count, name: name)) { response in
            #expect(response.status == .created, "\(response.text)")
            return try #require(response.headers[.location])
        }
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            try await client.execute(uri: location, method: .patch, headers: Self.piece(at: offset), body: ByteBuffer(bytes: bytes[offset..<end])) { response in
                #expect(response.status == .noContent, "\(response.text)")
                #expect(response.headers[HTTPField.Name("Upload-Offset")!] == String(end))
            }
            offset = end
        }
        return location
    }

    @Test(arguments: CatalogBackend.allCases) func piecesMakeAFileThatIsImportedAndPaired(on backend: CatalogBackend) async throws {
        let gallery = try GalleryLibrary(folders: [], on: backend)
        let still = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Media.path("apple-live-photo/IMG_4394.HEIC"))))
        let movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Media.path("apple-live-photo/IMG_4394.mov"))))
        try await gallery.test { client in
            try await client.execute(uri: "/api/uploads", method: .options, headers: Self.write) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
                #expect(response.headers[HTTPField.Name("Tus-Extension")!]?.contains("creation") == true)
                #expect(response.headers[HTTPField.Name("Tus-Max-Size")!] == String(16 << 30))
            }
            // Half, then where it ends, then a piece at the wrong place, then the rest.
            let location = try await client.execute(uri: "/api/uploads", method: .post, headers: Self.creating(still.count, name: "IMG_4394.HEIC")) { response in
                #expect(response.status == .created)
                #expect(response.headers[HTTPField.Name("Upload-Expires")!]?.hasSuffix("GMT") == true)
                return try #require(response.headers[.location])
            }
            let half = still.count / 2
            try await client.execute(uri: location, method: .patch, headers: Self.piece(at: 0), body: ByteBuffer(bytes: still[..<half])) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: location, method: .head, headers: [HTTPField.Name("Tus-Resumable")!: "1.0.0"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("Upload-Offset")!] == String(half))
                #expect(response.headers[HTTPField.Name("Upload-Length")!] == String(still.count))
            }
            try await client.execute(uri: location, method: .patch, headers: Self.piece(at: 10), body: ByteBuffer(bytes: still[10..<20])) { response in
                #expect(response.status == .conflict)
                #expect(response.text.contains("send from byte \(half)"))
            }
            // Until it is whole, the catalog knows nothing of it.
            #expect(try gallery.library.assetIDs(matching: AssetQuery()).isEmpty)
            try await client.execute(uri: location, method: .patch, headers: Self.piece(at: half), body: ByteBuffer(bytes: still[half...])) {
                #expect($0.status == .noContent)
            }
            let imported = try await client.execute(uri: location + "?wait=1", method: .get) { try $0.object() }
            #expect(imported["outcome"] as? String == "imported" && imported["offset"] as? Int == still.count, "\(imported)")
            // The movie, sent later in the same batch, joins it.
            let movieLocation = try await Self.send(movie, name: "IMG_4394.mov", piece: 1 << 20, client)
            let paired = try await client.execute(uri: movieLocation + "?wait=1", method: .get) { try $0.object() }
            // Both at once, as the page follows its imports.
            let ids = [location, movieLocation].map { $0.split(separator: "/").last.map(String.init) ?? "" }.joined(separator: ",")
            let both = try await client.execute(uri: "/api/uploads?ids=\(ids)&wait=1", method: .get) { try $0.object() }
            #expect((both["uploads"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String } == ["imported", "imported"], "\(both)")
            #expect(paired["outcome"] as? String == "imported" && paired["paired"] as? Bool == true, "\(paired)")
            #expect(paired["asset"] as? Int == imported["asset"] as? Int)
            // A file whole in the request that makes its upload (creation-with-upload).
            var withBody = Self.creating(still.count, name: "IMG_4394-copy.HEIC", batch: "b2")
            withBody[.contentType] = "application/offset+octet-stream"
            let carried = try await client.execute(uri: "/api/uploads", method: .post, headers: withBody, body: ByteBuffer(bytes: still)) { response in
                #expect(response.status == .created)
                #expect(response.headers[HTTPField.Name("Upload-Offset")!] == String(still.count))
                return try #require(response.headers[.location])
            }
            let copy = try await client.execute(uri: carried + "?wait=1", method: .get) { try $0.object() }
            #expect(copy["outcome"] as? String == "duplicate", "\(copy)")
            // The still again, saying its hash: known before a byte is sent.
            let sha = Data(try FileReading.sha256(of: Media.path("apple-live-photo/IMG_4394.HEIC")).utf8).base64EncodedString()
            var known = Self.creating(still.count, name: "copy.heic")
            known[HTTPField.Name("Upload-Metadata")!] = "filename \(Data("copy.heic".utf8).base64EncodedString()),sha256 \(sha)"
            try await client.execute(uri: "/api/uploads", method: .post, headers: known) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.location] == nil)
                let body = try response.object()
                #expect(body["outcome"] as? String == "duplicate" && body["asset"] as? Int == imported["asset"] as? Int)
            }
        }
        let assets = try gallery.library.describe(try gallery.library.assetIDs(matching: AssetQuery()))
        #expect(assets.count == 1 && assets[0].kind == .live)
        let left = try FileManager.default.contentsOfDirectory(atPath: gallery.library.layout.temporary.appendingPathComponent("uploads").path)
        #expect(left.allSatisfy { $0.hasSuffix(".json") }, "only the outcomes stay: \(left)")
    }

    @Test func refusalsSayWhyWithTheProtocolsStatuses() async throws {
        let gallery = try GalleryLibrary(folders: [])
        try await gallery.test { client in
            var header = Self.creating(10, name: "a.jpg")
            header[HTTPField.Name("X-Camlib-Request")!] = nil
            try await client.execute(uri: "/api/uploads", method: .post, headers: header) { #expect($0.status == .forbidden) }
            var noLength = Self.write
            noLength[HTTPField.Name("Upload-Metadata")!] = "filename YS5qcGc="
            try await client.execute(uri: "/api/uploads", method: .post, headers: noLength) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("Upload-Length"))
            }
            try await client.execute(uri: "/api/uploads", method: .post, headers: Self.creating(17 << 30, name: "huge.mov")) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.text.contains("huge.mov is 17 GB, larger than the 16 GB this gallery accepts"), "\(response.text)")
            }
            var old = Self.creating(10, name: "a.jpg")
            old[HTTPField.Name("Tus-Resumable")!] = "0.2.2"
            try await client.execute(uri: "/api/uploads", method: .post, headers: old) { response in
                #expect(response.status == .preconditionFailed)
                #expect(response.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
            }
            let location = try await client.execute(uri: "/api/uploads", method: .post, headers: Self.creating(10, name: "a.jpg")) { try #require($0.headers[.location]) }
            var wrongType = Self.piece(at: 0)
            wrongType[.contentType] = "application/octet-stream"
            try await client.execute(uri: location, method: .patch, headers: wrongType, body: ByteBuffer(string: "0123456789")) {
                #expect($0.status == .unsupportedMediaType)
            }
            try await client.execute(uri: location, method: .patch, headers: Self.piece(at: 0), body: ByteBuffer(string: "0123456789ab")) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.text.contains("more bytes than the 10 announced for a.jpg"))
            }
            // Cancelled: gone.
            try await client.execute(uri: location, method: .delete, headers: Self.write) { #expect($0.status == .noContent) }
            try await client.execute(uri: location, method: .head, headers: Self.write) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/uploads/../../catalog.sqlite", method: .head, headers: Self.write) { #expect($0.status == .notFound) }
            // Not a photo: whole, then named as skipped with import's reason.
            let text = try await Self.send(Array("not a photo".utf8), name: "notes.txt", piece: 4, client)
            let skipped = try await client.execute(uri: text + "?wait=1", method: .get) { try $0.object() }
            #expect(skipped["outcome"] as? String == "skipped" && (skipped["message"] as? String)?.isEmpty == false, "\(skipped)")
        }
        #expect(try gallery.library.assetIDs(matching: AssetQuery()).isEmpty)
        // Off loopback, an upload needs the token, as every request does.
        try await gallery.test(host: "0.0.0.0", token: "a-token-of-sixteen") { client in
            try await client.execute(uri: "/api/uploads", method: .post, headers: Self.creating(10, name: "a.jpg")) { #expect($0.status == .unauthorized) }
            var bearer = Self.creating(10, name: "a.jpg")
            bearer[.authorization] = "Bearer a-token-of-sixteen"
            try await client.execute(uri: "/api/uploads", method: .post, headers: bearer) { #expect($0.status == .created) }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func thePageLearnsWhichSizesTheLibrarysOriginalsHave(on backend: CatalogBackend) async throws {
        // Only a file of one of these sizes can be in the library: the page hashes those alone.
        let gallery = try GalleryLibrary(folders: ["orientation"], on: backend)
        let sizes = try gallery.library.describe(try gallery.library.assetIDs(matching: AssetQuery())).compactMap { $0.primaryOriginal?.bytes }
        let thumbnail = try #require(try gallery.library.describe([try gallery.library.assetIDs(matching: AssetQuery())[0]])[0].resources.first { $0.role == .thumbnail })
        try #require(!sizes.contains(thumbnail.bytes))
        try await gallery.test { client in
            let asked = [sizes[0], sizes[1], 7, thumbnail.bytes, sizes[0]]
            let known = try await client.execute(uri: "/api/known-sizes?bytes=\(asked.map(String.init).joined(separator: ","))", method: .get) { response in
                #expect(response.status == .ok)
                return try response.object()["known"] as? [Int64]
            }
            #expect(known == Set([sizes[0], sizes[1]]).sorted(), "originals' sizes only: not a thumbnail's, not one no file has")
            for bad in ["", "?bytes=", "?bytes=12,x", "?bytes=-4", "?bytes=" + Array(repeating: "1", count: 1001).joined(separator: ",")] {
                try await client.execute(uri: "/api/known-sizes" + bad, method: .get) { #expect($0.status == .badRequest, "\(bad.prefix(20))") }
            }
        }
    }
}
