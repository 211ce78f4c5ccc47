import Foundation
import HTTPTypes
import Hummingbird

/// Enforces ``AccessPolicy`` on every request before any route sees it.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: AccessPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await checked(request, context: context, next: next)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        // Browsers take every answer, errors too, for the type it says, never guessing
        // from its bytes.
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }

    private func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard policy.acceptsHost(request.head.authority) else {
            throw HTTPError(.misdirectedRequest, message: "this gallery answers to 127.0.0.1 and localhost only")
        }
        if policy.token != nil {
            let given = bearer(request) ?? request.uri.queryParameters["token"].map(String.init) ?? cookie(request)
            guard policy.accepts(given) else {
                throw HTTPError(.unauthorized, message: "this gallery needs its token: open the URL `camlib serve` printed")
            }
        }
        // A page of another site may link here, but not use the API or make the gallery
        // decode and encode for it (an edit preview costs a second of CPU), nor start a
        // download (a ZIP reads every file it names): browsers say where a request comes
        // from in Sec-Fetch-Site (a bookmark or a typed URL: "none").
        let path = request.uri.path
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site == "cross-site" || site == "same-site",
            path.hasPrefix("/api/") || path.hasPrefix("/media/") || path.hasPrefix("/download")
        {
            throw HTTPError(.forbidden, message: "the gallery's API and files answer its own page only")
        }
        // Every method but GET and HEAD changes something.
        if request.method != .get && request.method != .head {
            guard request.headers[HTTPField.Name(AccessPolicy.writeHeader)!] == "1" else {
                throw HTTPError(.forbidden, message: "a change needs the \(AccessPolicy.writeHeader) header the gallery's page sends")
            }
            // An Origin is "scheme://host[:port]", the same host and port as the request's.
            if let origin = request.headers[.origin], let host = request.head.authority,
                origin.split(separator: "://", maxSplits: 1).last.map({ $0.lowercased() }) != host.lowercased()
            {
                throw HTTPError(.forbidden, message: "a change must come from the gallery's own page")
            }
        }
        var response = try await next(request, context)
        // A token given in the URL is kept in a cookie, so the page's images and movies
        // (which cannot send headers) carry it too.
        if let token = policy.token, request.uri.queryParameters["token"].map(String.init) == token, cookie(request) != token {
            response.headers.append(
                HTTPField(name: .setCookie, value: "\(AccessPolicy.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
        }
        return response
    }

    private func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst(7))
    }

    private func cookie(_ request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for part in field.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == AccessPolicy.cookieName { return String(pair[1]) }
            }
        }
        return nil
    }
}
