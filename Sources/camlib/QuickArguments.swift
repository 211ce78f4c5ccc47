import Foundation
import Library

/// The arguments of `camlib query` and `camlib show` read without ArgumentParser, when they
/// are plain: each option known, spelt `--option value`, with a valid value, at most once
/// unless it repeats. Anything else (help, a mistake, `--option=value`, a value starting
/// with `-`) is left to ArgumentParser, so what camlib prints is the same either way.
///
/// Why: a listing's own work at a million assets is a few milliseconds of SQL, and
/// ArgumentParser, which builds each command's arguments by reflection, cost about as much
/// again before that work began (docs/performance.md). ArgumentParser stays the definition:
/// the tests compare this reading with its reading of the same arguments, and the options
/// known here with the ones its help lists.
enum QuickArguments {
    /// `camlib query`'s options that take a value, by name, and its flags.
    static let queryOptions: Set<String> = [
        "--library", "--kind", "--has", "--make", "--model", "--since", "--until", "--paired-by", "--name", "--sort", "--limit", "--after",
        "--album", "--keyword", "--near", "--within", "--place", "--country", "--search", "--box",
    ]
    static let queryFlags: Set<String> = ["--reverse", "--trashed", "--favorite", "--json", "--csv"]
    static let repeatable: Set<String> = ["--kind", "--has", "--keyword"]
    /// `camlib show`'s.
    static let showOptions: Set<String> = ["--library"]
    static let showFlags: Set<String> = ["--json"]

    /// The options and flags given, each once unless repeatable, and the positional
    /// arguments; nil when the arguments are not plain.
    static func split(_ arguments: [String], options: Set<String>, flags: Set<String>) -> (values: [String: [String]], flags: Set<String>, positional: [String])? {
        var values: [String: [String]] = [:]
        var given: Set<String> = []
        var positional: [String] = []
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if options.contains(argument) {
                // A value starts with "-" only as a southern or western place (--near -33.86,151.21).
                guard i + 1 < arguments.count, !arguments[i + 1].hasPrefix("-") || (argument == "--near" && arguments[i + 1].dropFirst().first?.isNumber == true),
                    values[argument] == nil || repeatable.contains(argument)
                else { return nil }
                values[argument, default: []].append(arguments[i + 1])
                i += 2
            } else if flags.contains(argument), !given.contains(argument) {
                given.insert(argument)
                i += 1
            } else if !argument.hasPrefix("-") {
                positional.append(argument)
                i += 1
            } else {
                return nil
            }
        }
        return (values, given, positional)
    }

    /// `camlib query ARGUMENTS`, as QueryCommand would run it, or nil.
    static func query(_ arguments: [String]) -> (location: URL, query: AssetQuery, format: AssetListPrinter.Format)? {
        guard let (values, flags, positional) = split(arguments, options: queryOptions, flags: queryFlags), positional.isEmpty else { return nil }
        let one = { (name: String) in values[name]?.first }
        var query = AssetQuery()
        for kind in values["--kind"] ?? [] {
            guard let kind = AssetKind(rawValue: kind) else { return nil }
            query.kinds.append(kind)
        }
        for feature in values["--has"] ?? [] {
            guard let feature = AssetQuery.Feature(name: feature) else { return nil }
            query.has.append(feature)
        }
        query.make = one("--make")
        query.model = one("--model")
        query.since = one("--since")
        query.until = one("--until")
        if let rule = one("--paired-by") {
            guard let rule = AssetQuery.PairedBy(rawValue: rule) else { return nil }
            query.pairedBy = rule
        }
        query.name = one("--name")
        if let sort = one("--sort") {
            guard let sort = AssetQuery.Sort(rawValue: sort) else { return nil }
            query.sort = sort
        }
        query.descending = flags.contains("--reverse")
        query.trashed = flags.contains("--trashed")
        query.favorite = flags.contains("--favorite")
        query.album = one("--album")
        query.keywords = values["--keyword"] ?? []
        query.place = one("--place")
        query.country = one("--country")
        query.search = one("--search")
        if let box = one("--box") {
            guard let parsed = AssetQuery.Box(parsing: box) else { return nil }
            query.box = parsed
        }
        guard AssetQuery.placeProblem(near: one("--near"), within: one("--within")) == nil else { return nil }
        query.near = AssetQuery.place(near: one("--near"), within: one("--within"))
        if let limit = one("--limit") {
            guard let limit = Int(limit) else { return nil }
            query.limit = limit
        }
        if let after = one("--after") {
            guard let cursor = AssetCursor(after) else { return nil }
            query.after = cursor
        }
        let (json, csv) = (flags.contains("--json"), flags.contains("--csv"))
        guard !(json && csv), query.datesOrLimitProblem == nil, query.cursorProblem == nil else { return nil }
        return (LibraryLocation.resolve(explicit: one("--library")), query, json ? .json : csv ? .csv : .table)
    }

    /// `camlib show ARGUMENTS`, as ShowCommand would run it, or nil.
    static func show(_ arguments: [String]) -> (location: URL, asset: String, json: Bool)? {
        guard let (values, flags, positional) = split(arguments, options: showOptions, flags: showFlags), positional.count == 1 else { return nil }
        return (LibraryLocation.resolve(explicit: values["--library"]?.first), positional[0], flags.contains("--json"))
    }
}
