import Crypto
import Foundation

/// The content identifier of an edited Live Photo's render pair. Apple gives a rendered
/// pair an identifier of its own, so the original still and movie pair with each other
/// and the rendered ones with each other (an export of both holds four files, and a reader
/// pairing by identifier must not join an edited still to the original movie).
///
/// It is derived from the original's identifier and the recipe (the bytes of SHA-256 as a
/// version-5-style UUID), so the same edit renders the same bytes and is stored once.
enum RenderIdentifier {
    static func derived(from original: String, recipe: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("camlib render of \(original): \(recipe)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 (name-based)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(hex[hex.index(hex.startIndex, offsetBy: r.lowerBound)..<hex.index(hex.startIndex, offsetBy: r.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// The identifier pair a render of `recipe` rewrites (the original's, and the render
    /// pair's own): for a Live Photo carrying an identifier only (nil when the new one
    /// would not be the same length, which the rewrite in place needs).
    static func pair(for asset: AssetDescription, recipe: CamlibRecipe) throws -> (old: String, new: String)? {
        guard asset.kind == .live, let old = asset.contentIdentifier else { return nil }
        let new = derived(from: old, recipe: try CamlibAdjustment.data(recipe))
        return new.utf8.count == old.utf8.count ? (old, new) : nil
    }

    /// Replaces every occurrence of `old` (as ASCII) with `new`, of the same length, in
    /// `bytes[range]`; returns how many there were. Offsets stay where they were.
    @discardableResult
    static func replace(_ old: String, with new: String, in bytes: inout [UInt8], within range: Range<Int>? = nil) -> Int {
        let from = Array(old.utf8), to = Array(new.utf8)
        precondition(from.count == to.count && !from.isEmpty, "identifiers must have the same length")
        let range = range ?? bytes.indices
        var count = 0
        var i = range.lowerBound
        while i + from.count <= range.upperBound {
            if bytes[i] == from[0] && bytes[i..<(i + from.count)].elementsEqual(from) {
                bytes.replaceSubrange(i..<(i + from.count), with: to)
                count += 1
                i += from.count
            } else {
                i += 1
            }
        }
        return count
    }
}
