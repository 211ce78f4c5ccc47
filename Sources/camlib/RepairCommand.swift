import ArgumentParser
import Foundation
import Library

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Mend what verify finds that the library itself can mend.",
        discussion: Help.reflow(
            """
            Makes every missing or damaged derived file again from the file it was made
            from (thumbnails, auxiliary images' PNGs, Motion Photo movies and posters), and
            renders camlib's own edits again from their recipes, so deleting derived/ loses
            nothing. Deletes files under derived/ that no catalog row names (what an import
            or edit killed half-way left), and moves such files under originals/ to
            lost+found/TIME/ in the library, where you can look at them: nothing of yours
            is deleted. Finishes an emptying of the trash that did not finish. Damaged
            originals are reported, not mended: they come back only from a backup. So is
            the render of an edit carrying images attached with `aux attach` (the library
            does not keep those apart from the render): `camlib revert` and `aux attach`
            make a new one.
            Run `camlib verify` afterwards to see that the library is sound.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(name: .customLong("dry-run"), help: "Say what would be done, and change nothing.")
    var dryRun = false

    @OptionGroup var output: JSONOutput<RepairCommand>

    func run() throws {
        // A dry run changes nothing: a library on read-only storage can have one.
        let library = try libraryOptions.open(dryRun ? .read : .write)
        let progress = ProgressBar()
        let report = try library.repair(dryRun: dryRun) { done, total in progress.update(done: done, total: total, item: "") }
        progress.finish()
        if output.json {
            print(try Terminal.json(report))
        } else if report.actions.isEmpty {
            print("Nothing to repair.")
        } else {
            for action in report.actions { print("\(action.kind.rawValue): \(action.detail.terminalSafe())") }
            let mended = report.actions.filter { $0.kind != .notRepaired }.count
            let left = report.actions.count - mended
            var line = dryRun ? "Would mend \(counted(mended, "thing"))" : "Mended \(counted(mended, "thing"))"
            if left > 0 { line += "; \(left) cannot be mended here (see above)" }
            print(line + ".")
            if let aside = report.lostAndFound { print("Files no row named are in \(aside).") }
        }
        if report.actions.contains(where: { $0.kind == .notRepaired }) { throw ExitCode(ExitStatus.partialFailure) }
    }
}

extension RepairCommand: JSONDescribed {
    static let jsonFields = "{dryRun, lostAndFound, actions: [{kind, asset, path, detail}]}"
}
