import ArgumentParser
import Foundation
import Library
import Testing
import TestSupport

@testable import camlib

/// `camlib query` and `show` read their plain arguments without ArgumentParser
/// (``QuickArguments``); ArgumentParser stays the definition. These tests hold the two
/// readings together: the same arguments give the same query, or the quick reading
/// declines and ArgumentParser answers.
@Suite struct QuickArgumentsTests {
    static let cursor = AssetCursor(sort: .captured, descending: true, key: .number(2_460_000.5), id: 42).description
    static let nameCursor = AssetCursor(sort: .name, descending: false, key: .text("img_1.heic"), id: 7).description

    /// Argument lists a user or script would give, and some that are wrong or unusual.
    static let queries: [[String]] = [
        [], ["--limit", "50"], ["--json"], ["--csv"], ["--json", "--csv"], ["--reverse"], ["--reverse", "--reverse"],
        ["--kind", "live"], ["--kind", "video", "--kind", "motion"], ["--kind", "bogus"],
        ["--has", "depth"], ["--has", "portrait-matte", "--has", "motion"], ["--has", "nothing"],
        ["--make", "Apple"], ["--make", "Apple", "--make", "Google"], ["--model", "iPhone 15 Pro"],
        ["--since", "2020-03-01", "--until", "2020-03-31"], ["--since", "2025-05-26T09:27:06-05:00"], ["--since", "yesterday"],
        ["--paired-by", "contentIdentifier"], ["--paired-by", "none"], ["--paired-by", "glue"],
        ["--name", "IMG_35*"], ["--name", "*.mov", "--sort", "name"], ["--sort", "imported", "--reverse"], ["--sort", "size"],
        ["--limit", "-1"], ["--limit", "ten"], ["--limit"],
        ["--reverse", "--limit", "50", "--after", cursor], ["--limit", "50", "--after", cursor], ["--after", "notacursor"],
        ["--sort", "name", "--after", nameCursor], ["--library", "/tmp/some library", "--json"], ["--library"],
        ["--limit=50"], ["--kind", "live", "extra"], ["--unknown"], ["-h"], ["--name", "-x"],
        ["--kind", "live", "--make", "Apple", "--since", "2020", "--limit", "50", "--json"],
        ["--trashed"], ["--trashed", "--json", "--kind", "live"], ["--trashed", "--trashed"],
        ["--favorite"], ["--album", "Summer 2025"], ["--keyword", "cat", "--keyword", "dog"], ["--near", "48.8584,2.2945"],
        ["--near", "-33.8568,151.2153", "--within", "300m"], ["--near", "48.8,2.2", "--within", "2.5km", "--favorite"],
        ["--near", "91,0"], ["--place", "Lisbon", "--country", "PT"], ["--search", "2025 apple"], ["--box", "38.6,-9.3,38.8,-9.0"], ["--box", "1,2,3"], ["--box", "10,170,20,-170"], ["--search", "\"new york\" may"], ["--near", "paris"], ["--within", "5km"], ["--near", "48.8,2.2", "--within", "far"],
    ]

    @Test(arguments: queries)
    func aQueryReadsAsArgumentParserReadsIt(arguments: [String]) throws {
        let parsed = try? QueryCommand.parseAsRoot(arguments) as? QueryCommand
        guard let quick = QuickArguments.query(arguments) else { return }
        let command = try #require(parsed, "read quickly, but ArgumentParser refuses \(arguments)")
        #expect(quick.query == command.filters.makeQuery(), "\(arguments)")
        #expect(quick.format == command.output.format, "\(arguments)")
        #expect(quick.location == command.libraryOptions.location, "\(arguments)")
    }

    @Test func plainQueriesAreReadQuickly() {
        for arguments in [[], ["--limit", "50"], ["--kind", "live", "--make", "Apple", "--since", "2020", "--limit", "50", "--json"],
                          ["--reverse", "--limit", "50", "--after", Self.cursor], ["--name", "IMG_35*", "--csv"]] {
            #expect(QuickArguments.query(arguments) != nil, "\(arguments)")
        }
    }

    @Test(arguments: [["42"], ["42", "--json"], ["--library", "/tmp/x", "/tmp/a photo.heic"], [], ["1", "2"], ["--json", "--json", "1"], ["--library"]])
    func showReadsAsArgumentParserReadsIt(arguments: [String]) throws {
        let parsed = try? ShowCommand.parseAsRoot(arguments) as? ShowCommand
        guard let quick = QuickArguments.show(arguments) else { return }
        let command = try #require(parsed, "read quickly, but ArgumentParser refuses \(arguments)")
        #expect(quick.asset == command.asset && quick.json == command.output.json && quick.location == command.libraryOptions.location, "\(arguments)")
    }

    /// Every option ArgumentParser lists for the two commands is known here: one added
    /// to QueryFilters and not here would otherwise only make queries using it slower.
    @Test func everyOptionIsKnown() throws {
        for (command, known) in [("query", QuickArguments.queryOptions.union(QuickArguments.queryFlags)), ("show", QuickArguments.showOptions.union(QuickArguments.showFlags))] {
            let dump = try Camlib.run([command, "--experimental-dump-help"])
            let info = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
            let arguments = try #require((info["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
            let names = Set(arguments.compactMap { ($0["names"] as? [[String: Any]])?.first { $0["kind"] as? String == "long" }?["name"] as? String })
                .subtracting(["help", "version"])
            #expect(!names.isEmpty)
            #expect(names.map { "--" + $0 }.sorted() == known.sorted(), "camlib \(command)")
        }
    }
}
