/// A failure reported by libheif: its error code, sub-code and message, and what camlib
/// was doing ("reading the file", "decoding the primary image").
public struct HEIFError: Error, CustomStringConvertible, Sendable {
    public let code: Int
    public let subcode: Int
    public let message: String
    public let context: String

    public var description: String { "\(context): \(message)" }
}
