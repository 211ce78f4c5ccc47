import ArgumentParser

/// `camlib query` and `camlib show`, the commands scripts and people run over and over,
/// read as directly as their arguments allow: plain arguments without ArgumentParser
/// (``QuickArguments``), others with the command as ArgumentParser's root.
///
/// Parsing from camlib's root, ArgumentParser first builds every command's arguments by
/// reflection, looking for a completion-script request: about 7 M of the 43 M
/// instructions a 50-asset listing took beyond start-up. Anything neither way can parse
/// quietly (help, versions, completion scripts, a mistake) goes the whole way from the
/// root instead, so what is printed is the same either way.
enum CatalogReads {
    /// By name, not by `configuration.commandName`: a configuration's help text is
    /// reflowed when it is built, 1.5 M instructions that a listing never prints.
    static let commands: [String: any ParsableCommand.Type] = [QueryCommand.name: QueryCommand.self, ShowCommand.name: ShowCommand.self]

    /// Arguments the root answers (wherever they appear, even as an option's value).
    static let forTheRoot: Set<String> = ["-h", "--help", "-help", "help", "--version", "--generate-completion-script", "--experimental-dump-help"]

    /// The command's work, its arguments read and validated, or nil when the root should
    /// parse these.
    static func parse(_ arguments: [String]) -> (() throws -> Void)? {
        guard let name = arguments.first, let command = commands[name], !arguments.contains(where: forTheRoot.contains) else { return nil }
        let rest = Array(arguments.dropFirst())
        if command == QueryCommand.self, let (location, query, format) = QuickArguments.query(rest) {
            return { try QueryCommand.list(location, query, format) }
        }
        if command == ShowCommand.self, let (location, asset, json) = QuickArguments.show(rest) {
            return { try ShowCommand.show(location, asset, json: json) }
        }
        guard var parsed = try? command.parseAsRoot(rest) else { return nil }
        return { try parsed.run() }
    }
}
