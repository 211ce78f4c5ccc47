import Foundation

/// Rewrites the lengths a Motion Photo's XMP declares for its movie, for a still whose
/// movie was replaced: `GCamera:MicroVideoOffset` and the `Length`/`Padding` of the
/// Container:Directory item whose semantic is `MotionPhoto`, in attribute or element form.
/// Everything else in the packet stays as it was.
public enum MotionPhotoXMP {
    public static func declaring(movieLength: Int, in xmp: String) -> String {
        var text = xmp
        // Older MicroVideo: bytes from the end of the file to the movie.
        text = replace(#"(MicroVideoOffset=")\d+(")"#, in: text, with: "$1\(movieLength)$2")
        text = replace(#"(MicroVideoOffset>)\d+(<)"#, in: text, with: "$1\(movieLength)$2")
        // The Container:Directory entry of the movie (one rdf:li).
        guard let items = try? NSRegularExpression(pattern: #"<rdf:li\b(?:(?!</rdf:li>).)*?</rdf:li>"#, options: [.dotMatchesLineSeparators])
        else { return text }
        let ns = text as NSString
        var result = ""
        var last = 0
        for match in items.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let item = ns.substring(with: match.range)
            let isMovie = item.contains("\"MotionPhoto\"") || item.contains(">MotionPhoto<")
            let isPrimary = item.contains("\"Primary\"") || item.contains(">Primary<")
            guard isMovie || isPrimary else { continue }
            // The primary's length becomes 0 ("up to the next item"), as Google writes it:
            // the re-rendered still has a new size.
            let length = isMovie ? movieLength : 0
            var updated = replace(#"(Length=")\d+(")"#, in: item, with: "$1\(length)$2")
            updated = replace(#"(Length>)\d+(<)"#, in: updated, with: "$1\(length)$2")
            if isMovie {
                updated = replace(#"(Padding=")\d+(")"#, in: updated, with: "$10$2")
                updated = replace(#"(Padding>)\d+(<)"#, in: updated, with: "$10$2")
            }
            result += ns.substring(with: NSRange(location: last, length: match.range.location - last)) + updated
            last = match.range.location + match.range.length
        }
        result += ns.substring(from: last)
        return result
    }

    static func replace(_ pattern: String, in text: String, with template: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return text }
        return regex.stringByReplacingMatches(in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: template)
    }
}
