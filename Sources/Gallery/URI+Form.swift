import Foundation
import HummingbirdCore

extension URI {
    /// The query's parameters as a page's form and `URLSearchParams` write them: `+` is a
    /// space (`q=2025+apple`), `%2B` a plus. Hummingbird's `queryParameters` decodes the
    /// percent signs only, so a space from the page would arrive as `+`.
    var formParameters: FlatDictionary<Substring, Substring> {
        guard let query, !query.isEmpty else { return .init() }
        func decode(_ part: Substring) -> Substring {
            let spaced = part.replacingOccurrences(of: "+", with: " ")
            return Substring(spaced.removingPercentEncoding ?? spaced)
        }
        return .init(
            query.split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (key: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
            })
    }
}
