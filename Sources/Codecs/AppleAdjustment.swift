internal import CZlib
import Foundation

/// An Apple Photos adjustment sidecar (`IMG_1234.AAE`, `IMG_O1234.AAE`): a property list
/// with the edit's format identifier, format version and data. For `com.apple.photo` the
/// data is raw DEFLATE of a JSON document (Crop, Effect, SmartTone, …), decoded here.
public struct AppleAdjustment: Sendable, Equatable {
    public var formatIdentifier: String
    public var formatVersion: String
    public var baseVersion: Int?
    public var editorBundleID: String?
    public var timestamp: Date?
    public var data: [UInt8]
    /// The JSON inside `com.apple.photo` data, pretty much as Photos wrote it.
    public var decodedJSON: String?

    public init(plist bytes: [UInt8]) throws {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw AppleAdjustmentError(message: "not a property list (\(error.localizedDescription))")
        }
        guard let dict = object as? [String: Any] else { throw AppleAdjustmentError(message: "the property list is not a dictionary") }
        guard let identifier = dict["adjustmentFormatIdentifier"] as? String else {
            throw AppleAdjustmentError(message: "no adjustmentFormatIdentifier")
        }
        formatIdentifier = identifier
        // Photos writes the version as a string ("1.4"); older files as a number.
        formatVersion = (dict["adjustmentFormatVersion"] as? String) ?? (dict["adjustmentFormatVersion"] as? NSNumber)?.stringValue ?? ""
        baseVersion = (dict["adjustmentBaseVersion"] as? NSNumber)?.intValue
        editorBundleID = dict["adjustmentEditorBundleID"] as? String
        timestamp = dict["adjustmentTimestamp"] as? Date
        data = (dict["adjustmentData"] as? Data).map { [UInt8]($0) } ?? []
        if identifier == "com.apple.photo", !data.isEmpty {
            let inflated = try RawDeflate.inflate(data)
            guard (try? JSONSerialization.jsonObject(with: Data(inflated))) != nil else {
                throw AppleAdjustmentError(message: "com.apple.photo data does not inflate to JSON")
            }
            decodedJSON = String(decoding: inflated, as: UTF8.self)
        }
    }
}

public struct AppleAdjustmentError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "Apple adjustment: \(message)" }
}

/// Raw DEFLATE (RFC 1951, no zlib header) through zlib.
public enum RawDeflate {
    /// Inflates `data`; refuses output beyond `limit` bytes (a hostile file can expand a
    /// thousandfold). `zlibWrapped`: the data has zlib's header and checksum (RFC 1950),
    /// as PNG's compressed text chunks do; `gzipWrapped`: gzip's (RFC 1952).
    public static func inflate(_ data: [UInt8], limit: Int = 64 << 20, zlibWrapped: Bool = false, gzipWrapped: Bool = false) throws -> [UInt8] {
        var stream = z_stream()
        guard CZlib_inflateInit2(&stream, gzipWrapped ? 15 + 16 : zlibWrapped ? 15 : -15) == Z_OK else { throw AppleAdjustmentError(message: "zlib cannot start") }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = data
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = uInt(inBuf.count)
            while true {
                let rc: Int32 = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = uInt(outBuf.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                out += chunk[0..<(chunk.count - Int(stream.avail_out))]
                if rc == Z_STREAM_END { return rc }
                if rc != Z_OK { return rc }
                if out.count > limit { return Z_MEM_ERROR }
                if stream.avail_in == 0 && stream.avail_out != 0 { return Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END else {
            throw AppleAdjustmentError(message: status == Z_MEM_ERROR ? "the data inflates beyond \(limit >> 20) MB" : "the DEFLATE data is damaged (zlib \(status))")
        }
        return out
    }
}
