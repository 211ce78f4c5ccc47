import Testing

@testable import Library

/// The runs of three characters a name pattern is looked up by in the trigram index: only
/// characters the pattern matches literally, so every file it matches holds them.
struct NamePatternTests {
    @Test(arguments: [
        ("*3582*", ["582", "358"]),
        ("IMG_3582.HEIC", ["582", "358"]),  // most digits first, then the last
        ("*.mov", ["mov", ".mo"]),
        ("a*bc?d", []),  // no run of three
        ("*[abc]de*", []),  // a class is not literal
        ("*[]xyz]w*", []),  // `]` first in a class is one of its characters
        ("*[^]xyz]w*", []),
        ("*[!]abc*", ["abc"]),  // `[!]` is a class of `!`; GLOB negates with `^`
        ("Ä_é*", ["Ä_é"]),  // SQL's lower() changes ASCII only
    ])
    func trigramsAreLiteralRuns(pattern: String, expected: [String]) {
        #expect(AssetListing.Filters.distinctiveTrigrams(pattern) == expected)
    }

    @Test func aPhraseQuotesItsQuotes() {
        #expect(AssetListing.Filters.phrase(#"a"b"#) == #""a""b""#)
    }
}
