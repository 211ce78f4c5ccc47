import Foundation

/// Why an upload was refused or could not go on; each names the file where it can.
public enum UploadError: Error, CustomStringConvertible, Equatable {
    case badLength
    case tooLarge(name: String, length: Int64, limit: Int64)
    case noSpace(name: String, length: Int64, free: Int64)
    case notFound(id: String)
    case busy(id: String)
    case wrongOffset(id: String, given: Int64, actual: Int64)
    case tooLong(name: String, length: Int64)
    case cannotWrite(name: String, detail: String)

    public var description: String {
        switch self {
        case .badLength:
            "an upload needs its length in bytes"
        case .tooLarge(let name, let length, let limit):
            "\(name) is \(Self.size(length)), larger than the \(Self.size(limit)) this gallery accepts (camlib serve --max-upload)"
        case .noSpace(let name, let length, let free):
            "\(name) (\(Self.size(length))) does not fit: the library's disk has \(Self.size(free)) free, and an upload needs twice its size while it is imported"
        case .notFound(let id):
            "no upload \(id) (it was finished, cancelled, or abandoned for a day)"
        case .busy(let id):
            "upload \(id) is being written by another request; try again in a moment"
        case .wrongOffset(_, let given, let actual):
            "the upload has \(actual) bytes, not \(given): send from byte \(actual)"
        case .tooLong(let name, let length):
            "more bytes than the \(length) announced for \(name)"
        case .cannotWrite(let name, let detail):
            "cannot store \(name): \(detail)"
        }
    }

    static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .binary)
    }
}
