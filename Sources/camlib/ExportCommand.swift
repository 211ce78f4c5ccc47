import ArgumentParser
import Foundation
import Library

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Copy assets out of the library, with their edits, in a form camlib import restores.",
        discussion: Help.reflow(
            """
            Each asset's originals are copied byte for byte under one name stem (a Live
            Photo's movie takes the still's stem; its content identifier already matches).
            When the current version is an edit, its render goes beside them as IMG_E1234.*
            (Apple's naming, or NAME_E.* for other names) with NAME.camlib.json, camlib's
            edit history; an Apple Photos edit takes its .AAE along. Importing the folder
            restores the assets with their history. --original copies the originals only.
            Files get the photo's capture time as their modification time. --dry-run
            lists what would be written. Existing files are never replaced. Files already there with the same bytes (an
            earlier export of the asset, even one cut short) count as exported, so exporting
            again writes only what is missing; an asset whose names are taken by other
            bytes gets NAME-2.*.
            Examples:
              camlib export 12 14 --to ~/Desktop/out
              camlib export --query --kind live --since 2025-01-01 --to /media/usb/photos
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String] = []

    @Flag(name: .long, help: "Export the assets the query options select (all assets when none is given).")
    var query = false

    @OptionGroup(title: "Query options (with --query)") var filters: QueryFilters

    @Option(name: .long, help: ArgumentHelp("The folder to write into (created if missing).", valueName: "dir"))
    var to: String

    @Flag(name: .long, help: "The originals only, not the current edit.")
    var original = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Folders under --to, from a template.",
            discussion: "Fields: {created:FORMAT} (%Y %y %m %d %H %M %S; undated without a capture time), {album}, {name}, {id}, {kind}. Example: '{created:%Y}/{created:%m}'.",
            valueName: "template"))
    var folder: String?

    @Option(
        name: .long,
        help: ArgumentHelp("File names (without extension) from a template, as --folder's: '{created:%Y%m%d}_{name}'.", valueName: "template"))
    var filename: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Bring an earlier export to this folder up to date: what changed since (an edit's render) replaces what that export wrote.",
            discussion: "Without it, a name held by other bytes gets NAME-2.*. Files someone changed since are never replaced."))
    var update = false

    @Flag(name: .customLong("dry-run"), help: "Say what would be written, and write nothing.")
    var dryRun = false

    @OptionGroup var output: JSONOutput<ExportCommand>

    func validate() throws {
        if assets.isEmpty && !query { throw ValidationError("name assets to export, or select them with --query") }
        if !assets.isEmpty && query { throw ValidationError("name assets or use --query, not both") }
        _ = try naming()
    }

    /// The --folder and --filename templates, read; a mistake in one is a usage error.
    func naming() throws -> Exporter.Naming {
        do {
            if let filename, filename.contains("/") { throw ValidationError("--filename \(filename): a file name cannot hold \"/\"; use --folder for folders") }
            return Exporter.Naming(folder: try folder.map(ExportTemplate.init), filename: try filename.map(ExportTemplate.init))
        } catch let error as ExportTemplateError {
            throw ValidationError("\(error)")
        }
    }

    func run() throws {
        let library = try libraryOptions.open(.read)
        let ids = query ? try library.assetIDs(matching: filters.makeQuery()) : try assets.map { try library.findAsset($0) }
        let folder = URL(fileURLWithPath: to)
        // The library's folders hold what its catalog names, nothing else.
        let inside = { (url: URL) in url.standardizedFileURL.resolvingSymlinksInPath().path }
        let (target, root) = (inside(folder), inside(library.root))
        if target == root || target.hasPrefix(root + "/") {
            throw ValidationError("--to \(to) is inside the library (\(library.root.path)); export to a folder outside it")
        }
        let naming = try naming()
        if !dryRun {
            try FileAccessError.makeFolder(folder, for: "--to")
            // What an export killed here before left half-written.
            Exporter.removeAbandonedTemporaries(in: folder)
        }
        // What earlier exports here wrote, kept up to date (.camlib-export.json).
        let manifest = ExportManifest(folder: folder)
        let progress = ProgressBar()
        var results: [Exporter.Exported] = []
        for (i, id) in ids.enumerated() {
            var result = Exporter.Exported(asset: id, files: [])
            do {
                guard let description = try library.describe([id]).first else { throw LibraryError.assetNotFound("with id \(id)") }
                progress.update(done: i, total: ids.count, item: description.primaryOriginal?.originalName ?? "asset \(id)")
                result.files = try Exporter.export(
                    description, from: library, to: folder, originalOnly: original, naming: naming, manifest: manifest, update: update, dryRun: dryRun)
            } catch {
                result.problem = "\(error)"
                Terminal.error("camlib: asset \(id): \(error)")
            }
            results.append(result)
            // Kept on the way, so a long export stopped half-way is mostly remembered.
            if !dryRun && (i + 1) % 200 == 0 { try? manifest.save() }
        }
        progress.update(done: ids.count, total: ids.count, item: "")
        progress.finish()
        if !dryRun {
            do { try manifest.save() } catch { Terminal.error("camlib: \(folder.path)/\(ExportManifest.name): \(error); a later --update compares files by their bytes") }
        }
        if output.json {
            print(try Terminal.json(results))
        } else {
            let files = results.reduce(0) { $0 + $1.files.count }
            let done = results.filter { $0.problem == nil }.count
            if dryRun {
                for path in results.flatMap(\.files) { print("  \(path.terminalSafe())") }
                print("Would write \(counted(files, "file")) for \(done) of \(counted(ids.count, "asset")) to \(folder.path); nothing was written (--dry-run).")
            } else {
                print("Exported \(done) of \(counted(ids.count, "asset")) (\(counted(files, "file"))) to \(folder.path).")
            }
        }
        if results.contains(where: { $0.problem != nil }) { throw ExitCode(ExitStatus.partialFailure) }
    }
}

extension ExportCommand: JSONDescribed {
    static let jsonFields = "an array of {asset, files, problem} (with --dry-run, the files that would be written)"
}
