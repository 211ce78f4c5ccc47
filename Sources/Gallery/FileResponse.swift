import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Library

/// A library file as an HTTP response: its entity tag, caching, conditional requests and
/// byte ranges (browsers seek in movies with them, and Safari plays nothing without them).
struct FileResponse {
    static let fileIO = FileIO()
    /// Files up to this size are read in one go; larger ones (movies) are streamed.
    static let smallFile = 512 * 1024

    /// `immutable`: the URL names these bytes for ever (content-addressed), so browsers
    /// keep them without asking again.
    static func respond(_ file: DisplayFile, to request: Request, immutable: Bool, context: some RequestContext) async throws -> Response {
        var info = stat()
        guard stat(file.url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw HTTPError(.notFound, message: "the library's file \(file.url.lastPathComponent) is missing (camlib verify can tell more)")
        }
        let size = Int(info.st_size)
        let etag = "\"\(file.tag)\""
        var headers = HTTPFields()
        headers[.contentType] = file.mime
        headers[.eTag] = etag
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = immutable ? "private, max-age=31536000, immutable" : "private, no-cache"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        var range: ClosedRange<Int>?
        if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            switch ByteRange.parse(header, size: size) {
            case .whole: break
            case .part(let r): range = r
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        if request.method == .head {
            headers[.contentLength] = String(range?.count ?? size)
            return Response(status: range == nil ? .ok : .partialContent, headers: headers)
        }
        guard size > 0 else { return Response(status: .ok, headers: headers) }
        if let range {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            let body = try await fileIO.loadFile(path: file.url.path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        // A thumbnail or preview: one read, without a round trip through NIO's file threads.
        if size <= smallFile, let data = FileManager.default.contents(atPath: file.url.path), data.count == size {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        let body = try await fileIO.loadFile(path: file.url.path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// An HTTP `Range` header of one byte range (RFC 9110 §14.1.2). Several ranges at once
/// are answered with the whole file, as the RFC allows.
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    static func parse(_ header: String, size: Int) -> ByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return .whole }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            // The last N bytes.
            guard let n = Int(parts[1]), n >= 0 else { return .whole }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - n)...(size - 1))
        }
        guard let first = Int(parts[0]), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if parts[1].isEmpty { return .part(first...(size - 1)) }
        guard let last = Int(parts[1]), last >= first else { return .whole }
        return .part(first...min(last, size - 1))
    }
}
