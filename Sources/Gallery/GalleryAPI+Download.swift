import Containers
import Foundation
import HTTPTypes
import Hummingbird
import Library
import NIOCore

/// Downloads: assets' files as `camlib export` names them, one file as itself and more
/// as a ZIP made as it is sent (no archive on disk; each file read once, a megabyte at a
/// time, as the connection takes it), with its length known before the first byte so
/// the browser shows how far it is.
///
/// ```
/// GET /download?assets=ID,…&version=original|current    one file, or a ZIP of them
/// GET /download?album=ID&version=original|current       an album's assets (not the trash), as a ZIP
/// ```
extension GalleryAPI {
    /// Assets a download may name in its URL.
    static let downloadLimit = 10_000

    func addDownloadRoutes(to router: Router<some RequestContext>) {
        router.get("/download") { request, context in
            let query = request.uri.formParameters
            guard let version = Exporter.DownloadVersion(rawValue: query["version"].map(String.init) ?? "original") else {
                throw HTTPError(.badRequest, message: "version is original or current")
            }
            let library = self.library
            let (files, title) = try await Blocking.run { () throws -> ([Exporter.DownloadFile], String) in
                var ids: [Int64]
                var title: String
                if let album = query["album"].flatMap({ Int64(String($0)) }) {
                    guard let name = try library.albumName(id: album) else { throw HTTPError(.notFound, message: "no album \(album)") }
                    let members = try library.album(named: name).assets
                    let trashed = Set(try library.trashed(among: Set(members)))
                    ids = members.filter { !trashed.contains($0) }
                    title = name
                } else {
                    ids = (query["assets"].map(String.init) ?? "").split(separator: ",").compactMap { Int64($0) }
                    title = "camlib-\(ids.count)-assets"
                }
                guard !ids.isEmpty else { throw HTTPError(.badRequest, message: "name the assets (assets=ID,…) or an album (album=ID)") }
                guard ids.count <= Self.downloadLimit else {
                    throw HTTPError(.badRequest, message: "at most \(Self.downloadLimit) assets at once; download an album for more")
                }
                let assets = try library.describe(ids)
                let missing = Set(ids).subtracting(assets.map(\.id))
                if !missing.isEmpty { throw HTTPError(.notFound, message: "no asset with id \(missing.sorted().map(String.init).joined(separator: ", "))") }
                // One asset's archive (a Live Photo's two files) is named as the asset.
                if assets.count == 1, let primary = assets[0].primaryOriginal {
                    title = URL(fileURLWithPath: primary.originalName ?? primary.path).deletingPathExtension().lastPathComponent
                }
                return (try Self.checked(Exporter.downloadFiles(assets, version: version)), title)
            }
            guard !files.isEmpty else { throw HTTPError(.notFound, message: "these assets have no files to download") }
            if files.count == 1 {
                let file = files[0]
                let display = DisplayFile(url: URL(fileURLWithPath: file.path), mime: Self.mime(of: file.name), tag: "download-\(file.asset)-\(file.bytes)")
                var response = try await FileResponse.respond(display, to: request, immutable: false, context: context)
                response.headers[.contentDisposition] = Self.attachment(file.name)
                return response
            }
            return Self.zipResponse(files, name: title + (version == .current ? "" : "-originals") + ".zip")
        }
    }

    /// `files` with their sizes as they are on disk; a file missing is an error naming it,
    /// before anything is sent. A file whose size is not the one recorded has changed since:
    /// its CRC-32 is computed as it is sent, not taken from the catalog.
    static func checked(_ files: [Exporter.DownloadFile]) throws -> [Exporter.DownloadFile] {
        try files.map { file in
            var info = stat()
            guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw HTTPError(.internalServerError, message: "asset \(file.asset): its file \(file.path) is missing (camlib verify can tell more)")
            }
            var sized = file
            if Int64(info.st_size) != file.bytes { sized.crc32 = nil }
            sized.bytes = Int64(info.st_size)
            return sized
        }
    }

    static func zipResponse(_ files: [Exporter.DownloadFile], name: String) -> Response {
        let download = ZipDownload(files)
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentLength] = String(download.length)
        headers[.contentDisposition] = attachment(name)
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            try await download.send(to: &writer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `Content-Disposition` for a file saved as `name`: an ASCII fallback and the UTF-8 name (RFC 6266).
    static func attachment(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }

    static func mime(of name: String) -> String {
        switch URL(fileURLWithPath: name).pathExtension.lowercased() {
        case "heic", "heif": "image/heic"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "avif": "image/avif"
        case "mov": "video/quicktime"
        case "mp4": "video/mp4"
        default: "application/octet-stream"
        }
    }
}

/// A file that could not be read half-way through a download: the connection is cut, so
/// the browser says the download failed rather than keeping a broken archive.
enum DownloadError: Error, CustomStringConvertible {
    case unreadable(file: Exporter.DownloadFile, detail: String)

    var description: String {
        switch self {
        case .unreadable(let file, let detail): "asset \(file.asset): cannot read \(file.path): \(detail)"
        }
    }
}
