import ArgumentParser
import Foundation
import Library

struct TrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "Move assets into the trash, list it, or empty it.",
        discussion: Help.reflow(
            """
            The trash is Apple Photos' Recently Deleted: a trashed asset keeps all its
            files and its edit history, but `camlib query` (without --trashed), export
            --query and the gallery leave it out, and it cannot be edited until `camlib
            restore` brings it back, whole. Nothing leaves the library until the trash is
            emptied: --empty deletes the trashed assets' files and catalog rows for good,
            and is the only way camlib ever deletes anything of a library. Asked on a
            terminal, --empty says what it will delete and waits for a yes.
            Examples:
              camlib trash 12 14
              camlib trash --query --name 'IMG_01*' --since 2025-05-01 --until 2025-05-31
              camlib trash --list
              camlib trash --empty --older-than 30d --dry-run
              camlib trash --empty --yes
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String] = []

    @Flag(name: .long, help: "Trash the assets the query options select.")
    var query = false

    @OptionGroup(title: "Query options (with --query)") var filters: QueryFilters

    @Flag(name: .long, help: "List the assets in the trash (as `camlib query --trashed`).")
    var list = false

    @Flag(name: .long, help: "Delete the assets in the trash for good, with all their files.")
    var empty = false

    @Option(
        name: .customLong("older-than"),
        help: ArgumentHelp("With --empty: only what went into the trash longer ago than this (30d, 12h, 2w).", valueName: "age"))
    var olderThan: String?

    @Flag(name: .customLong("dry-run"), help: "With --empty: say what would be deleted, and delete nothing.")
    var dryRun = false

    @Flag(name: .long, help: "With --empty: do not ask first on a terminal.")
    var yes = false

    @OptionGroup var output: OutputFormat<TrashCommand>


    func validate() throws {
        let modes = [!assets.isEmpty, query, list, empty].filter { $0 }.count
        if modes == 0 { throw ValidationError("name assets to trash, select them with --query, or use --list or --empty") }
        if modes > 1 { throw ValidationError("use one of: assets, --query, --list, --empty") }
        if !empty && (olderThan != nil || dryRun || yes) { throw ValidationError("--older-than, --dry-run and --yes go with --empty") }
        if output.csv && !list { throw ValidationError("--csv goes with --list") }
        if let olderThan, Self.age(olderThan) == nil {
            throw ValidationError("--older-than \(olderThan): not an age; use a number of hours, days or weeks: 12h, 30d, 2w")
        }
    }

    func run() throws {
        if list {
            var query = AssetQuery()
            query.trashed = true
            return try QueryCommand.list(libraryOptions.location, query, output.format)
        }
        let library = try libraryOptions.open(.write)
        if empty { return try emptyTrash(library) }
        let (ids, unknown) = query ? (try library.assetIDs(matching: filters.makeQuery()), 0) : AssetReferences.find(assets, in: library)
        let changes = try library.trash(ids)
        if output.json {
            print(try Terminal.json(changes))
        } else {
            report(changes)
        }
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }

    private func report(_ changes: [TrashChange]) {
        let moved = changes.filter { $0.outcome == .trashed }.count
        let already = changes.count - moved
        var line = "Moved \(counted(moved, "asset")) to the trash"
        if already > 0 { line += " (\(counted(already, "was", plural: "were")) there already)" }
        print(line + ".")
        if moved > 0 {
            let ids = changes.filter { $0.outcome == .trashed }.map { String($0.asset) }
            let restore = ids.count <= 10 ? ids.joined(separator: " ") : "ID..."
            print("`camlib restore \(restore)` brings \(moved == 1 ? "it" : "them") back; `camlib trash --empty` deletes \(moved == 1 ? "it" : "them") for good.")
        }
    }

    private func emptyTrash(_ library: PhotoLibrary) throws {
        let before = olderThan.flatMap(Self.age).map { Date(timeIntervalSinceNow: -$0) }
        if !dryRun && !yes && !output.json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            let plan = try library.emptyTrash(before: before, dryRun: true)
            guard !plan.assets.isEmpty else { return print(Self.nothing(olderThan)) }
            print("Delete \(counted(plan.assets.count, "asset")) in the trash for good: \(counted(plan.files, "file")), \(Self.size(plan.bytes))? This cannot be undone. [y/N] ", terminator: "")
            fflush(nil)  // the question, before waiting for its answer
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces)) else {
                return print("Nothing deleted.")
            }
        }
        let progress = ProgressBar()
        let report = try library.emptyTrash(before: before, dryRun: dryRun) { done, total in
            progress.update(done: done, total: total, item: "")
        }
        progress.finish()
        for problem in report.problems { Terminal.error("camlib: \(problem)") }
        if output.json {
            print(try Terminal.json(report))
        } else if report.assets.isEmpty {
            print(Self.nothing(olderThan))
        } else {
            let what = "\(counted(report.assets.count, "asset")): \(counted(report.files, "file")), \(Self.size(report.bytes))"
            print(dryRun ? "Would delete \(what). Nothing was deleted (--dry-run)." : "Deleted \(what), for good.")
        }
        if !report.problems.isEmpty {
            Terminal.error("camlib: \(counted(report.problems.count, "file")) could not be deleted; `camlib trash --empty` tries again")
            throw ExitCode(ExitStatus.partialFailure)
        }
    }

    static func nothing(_ olderThan: String?) -> String {
        olderThan.map { "Nothing in the trash is older than \($0)." } ?? "The trash is empty."
    }

    /// `30d`, `12h`, `2w` in seconds.
    static func age(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let number = Double(text.dropLast()), number >= 0, number.isFinite else { return nil }
        switch unit {
        case "h": return number * 3600
        case "d": return number * 86400
        case "w": return number * 7 * 86400
        default: return nil
        }
    }

    static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}

extension TrashCommand: JSONDescribed {
    static let jsonFields = "what changed for each asset; with --list, the assets (as `query --json`); with --empty, what was deleted"
}
