import GRDB
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

    /// A pattern with a literal start is looked up by the range of names starting with it;
    /// when it is that start and one `*`, the range alone is the pattern (no GLOB after).
    @Test(arguments: [
        ("IMG_35*", "img_35", "img_36", true),
        ("img_35*", "img_35", "img_36", true),
        ("IMG_35?*", "img_35", "img_36", false),
        ("IMG_35**", "img_35", "img_36", false),
        ("IMG_3582.HEIC", "img_3582.heic", "img_3582.heid", false),
        ("landscape_?.JPG", "landscape_", "landscape`", false),
        ("IMG[0-9]*", "img", "imh", false),
    ])
    func aLiteralStartIsARangeOfNames(pattern: String, low: String, high: String, whole: Bool) throws {
        let range = try #require(AssetListing.Filters.nameRange(pattern))
        #expect((range.low, range.high, range.whole) == (low, high, whole))
        // Whatever GLOB matches lies in the range; a whole range holds nothing else.
        let names = ["img_35", "img_3499.heic", "img_35.mov", "img_3582.heic", "img_3582.heicx", "img_36", "img5",
                     "landscape_1.jpg", "landscape_10.jpg", "img_35\u{e9}.jpg", "imh"]
        let queue = try DatabaseQueue()
        for name in names {
            let matches = try queue.read { try Bool.fetchOne($0, sql: "SELECT ? GLOB lower(?)", arguments: [name, pattern])! }
            let inRange = name >= range.low && name < range.high
            if matches { #expect(inRange, "\(name)") }
            if range.whole { #expect(matches == inRange, "\(name)") }
        }
    }

    @Test(arguments: ["*3582*", "?MG*", "[iI]MG*", "É*"])
    func aPatternWithoutALiteralStartHasNoRange(pattern: String) {
        #expect(AssetListing.Filters.nameRange(pattern) == nil)
    }

    @Test func anFTS5PhraseQuotesItsQuotes() {
        #expect(CatalogDialect.sqlite.assetsWithNamesHolding([#"a"b"#]).arguments == [#""a""b""#.databaseValue])
    }
}
