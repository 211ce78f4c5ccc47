import Containers
import Foundation
import Testing
import TestSupport

@testable import Library

/// The JSON contract is written by hand (``PrettyJSON``) for speed; Foundation's encoder is
/// the reference it must match byte for byte.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AssetJSONTests {
    static func reference<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    @Test func everyCorpusAssetIsWrittenAsJSONEncoderWritesIt() throws {
        let library = try CorpusLibrary.shared().library
        var assets: [AssetDescription] = []
        try library.assets(matching: AssetQuery()) { assets += $0 }
        #expect(assets.count > 40 && assets.contains { !$0.aux.isEmpty } && assets.contains { !$0.adjustments.isEmpty })
        for asset in assets {
            #expect(asset.prettyJSON == (try Self.reference(asset)), "asset \(asset.id)")
        }
        // A page: the elements between an array's brackets.
        let array = try Self.reference(assets)
        #expect([UInt8]("[\n".utf8) + AssetDescription.prettyJSONElements(assets) + [UInt8]("\n]".utf8) == array)
    }

    @Test func oddValuesAreWrittenAsJSONEncoderWritesThem() throws {
        var encoding = AuxiliaryEncoding()
        encoding.floatMin = 1e-7
        encoding.floatMax = 1e21
        encoding.near = -0.0
        encoding.far = 1.0
        encoding.intMax = 255
        encoding.intMin = -9_223_372_036_854_775_807 - 1
        encoding.properties = ["c:J": "{\"a\":[1,2],\"b\":{}}, [x]: \\", "b:Q": "q\"uote\\back/slash", "a:Z": "\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}é😀\u{2028}", "A:a": ""]
        let aux = AssetDescription.Aux(
            type: .depth, urn: nil, width: 1, height: nil, bitDepth: 16, path: "/tmp/a b/ü.png", source: "xmp:GDepth", channels: 1,
            encoding: encoding, problem: "line\nbreak")
        var asset = AssetDescription(
            id: .max, kind: .live, capturedAt: nil, make: "Ma\"ke", model: nil, width: 0, height: -1, orientation: nil,
            contentIdentifier: nil, pairing: .init(rule: .stem, confidence: 0.7), resources: [], lensModel: nil,
            location: GeoLocation(latitude: 1.5, longitude: -0.000001), duration: 123456789012345678, videoCodec: nil, audioCodec: nil,
            importedAt: "2026-11-22T10:15:30.123Z", aux: [aux, aux], adjustments: [], stillImageTime: 1.3316666666666668)
        asset.cursor = "abc-_"
        #expect(asset.prettyJSON == (try Self.reference(asset)))
        asset.trashedAt = "2026-11-23T22:25:26.714Z"
        #expect(asset.prettyJSON == (try Self.reference(asset)))
        // The catalog's compact JSON, re-indented, is what encoding the decoded value gives.
        var stored = aux
        stored.storedEncoding = .json(encoding.json)
        asset.aux = [stored]
        #expect(asset.prettyJSON == (try Self.reference(asset)))
    }

    /// A cursor's text is base64url without padding: Foundation's base64 with the two
    /// characters swapped and the padding cut, for every remainder of three.
    @Test func cursorsAreBase64URL() {
        for count in 0...40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(AssetCursor.base64URL(bytes) == foundation, "\(count) bytes")
        }
    }
}
