import Foundation

/// A value of any encodable type, for JSON objects put together in place.
struct AnyEncodable: Encodable {
    let encode: (any Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encode = value.encode }
    func encode(to encoder: any Encoder) throws { try encode(encoder) }
}
