import Codecs

/// An auxiliary image that could not be attached or extracted, naming the asset and the
/// file as a user sees them: "asset 12 (IMG_0102.JPG): the photo already has a depth
/// image", or for a file outside the library "pug.heic: …".
public struct AuxiliaryError: Error, CustomStringConvertible, Sendable {
    /// nil for a file outside the library.
    public let asset: Int64?
    /// The file's name when it was imported, or the path given.
    public let file: String?
    public let reason: String

    public init(_ reason: String, asset: Int64? = nil, file: String? = nil) {
        (self.reason, self.asset, self.file) = (reason, asset, file)
    }

    public var description: String {
        switch (asset, file) {
        case let (asset?, file?): "asset \(asset) (\(file)): \(reason)"
        case let (asset?, nil): "asset \(asset): \(reason)"
        case let (nil, file?): "\(file): \(reason)"
        case (nil, nil): reason
        }
    }

    /// Runs `body`; what it throws becomes an `AuxiliaryError` about `asset` and `file`
    /// (an `AuxiliaryError` keeps its reason and takes these names: a library attach
    /// works on a render whose path means nothing to the user).
    static func naming<T>(asset: Int64? = nil, file: String?, _ body: () throws -> T, onError: () -> Void = {}) throws -> T {
        do {
            return try body()
        } catch {
            onError()
            throw named(error, asset: asset, file: file)
        }
    }

    private static func named(_ error: Error, asset: Int64?, file: String?) -> Error {
        switch error {
        case let error as AuxiliaryError:
            AuxiliaryError(error.reason, asset: asset ?? error.asset, file: file ?? error.file)
        // It names its own file (the PNG given, the --out path).
        case let error as FileAccessError:
            error
        default:
            AuxiliaryError(MediaAnalyzer.describe(error), asset: asset, file: file)
        }
    }
}
