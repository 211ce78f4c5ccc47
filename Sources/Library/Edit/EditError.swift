import Codecs

/// An edit that could not be rendered, naming the asset and the file, as a user sees them:
/// "asset 12 (IMG_0102.HEIC): cannot read HEIF: decoding image item 49: …".
public struct EditError: Error, CustomStringConvertible, Sendable {
    public let asset: Int64
    /// The file's name when it was imported (the library's name otherwise).
    public let file: String
    public let reason: String

    public var description: String { "asset \(asset) (\(file)): \(reason)" }

    /// Runs `body`; an error it throws becomes an `EditError` about `resource`.
    static func naming<T>(asset: Int64, _ resource: AssetDescription.Resource, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as EditError {
            throw error
        } catch {
            let name = resource.originalName ?? String(resource.path.split(separator: "/").last ?? "")
            // libheif's errors say what it was doing ("decoding image item 49").
            let reason = (error as? HEIFError).map { "cannot read HEIF: \($0.description)" } ?? MediaAnalyzer.describe(error)
            throw EditError(asset: asset, file: name, reason: reason)
        }
    }
}
