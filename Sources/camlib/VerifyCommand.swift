import ArgumentParser
import Foundation
import Library

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that the library's files are all there, unchanged, and all known.",
        discussion: Help.reflow(
            """
            Every file the catalog names (originals, sidecars, thumbnails, renders,
            auxiliary images) must exist, inside the library folder, with the sha256
            recorded when it was written; and every file under originals/ and derived/
            must be named by the catalog (previews and proxies made for browsers: from
            bytes a file of the library has). --quick compares sizes, and checks that no
            file was written after it entered the library, instead of reading every byte.
            Nothing is changed. Works on a read-only library. `camlib repair` mends what
            can be mended from the library itself.

            Exit status: 0 when the library is sound, 2 when something was found (each
            problem is listed, naming the asset, the file and what is wrong), 1 when the
            check could not run.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(name: .long, help: "Compare sizes and modification times, not sha256s.")
    var quick = false

    @OptionGroup var output: JSONOutput<VerifyCommand>

    func run() throws {
        let library = try libraryOptions.open(.read)
        let progress = ProgressBar()
        let report = try library.verify(quick: quick) { done, total in progress.update(done: done, total: total, item: "") }
        progress.finish()
        if output.json {
            print(try Terminal.json(Output(report)))
        } else {
            for p in report.problems { print("\(p.kind.rawValue): \(p.detail.terminalSafe())") }
            let how = quick ? "sizes and times of" : "\(ByteCountFormatter.string(fromByteCount: report.bytesRead, countStyle: .file)) read, every byte of"
            if report.sound {
                print("The library is sound: \(how) \(counted(report.files, "file")) checked, and no file unknown.")
            } else {
                let lost: Set<VerifyReport.Problem.Kind> = [.missing, .damaged, .modified]
                let originals = report.problems.filter { $0.original && lost.contains($0.kind) }.count
                var line = "Found \(counted(report.problems.count, "problem")) (\(how) \(counted(report.files, "file")) checked)"
                if originals > 0 { line += "; \(originals) concern originals, which only a backup can bring back" }
                print(line + ".")
                let renders: Set<String> = ["renderedPhoto", "renderedVideo"]
                let mendable = report.problems.filter { p in
                    [.unknown, .pendingRemoval].contains(p.kind)
                        || (!p.original && [.missing, .damaged].contains(p.kind) && !renders.contains(p.role ?? ""))
                }.count
                if mendable > 0 { print("`camlib repair` mends \(mendable) of them (derived files made again, unknown files cleared).") }
            }
        }
        if !report.sound { throw ExitCode(ExitStatus.partialFailure) }
    }

    /// The report with `sound` spelled out.
    struct Output: Encodable {
        let report: VerifyReport
        init(_ report: VerifyReport) { self.report = report }

        enum CodingKeys: String, CodingKey { case sound, quick, files, bytesRead, problems }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(report.sound, forKey: .sound)
            try c.encode(report.quick, forKey: .quick)
            try c.encode(report.files, forKey: .files)
            try c.encode(report.bytesRead, forKey: .bytesRead)
            try c.encode(report.problems, forKey: .problems)
        }
    }
}

extension VerifyCommand: JSONDescribed {
    static let jsonFields = "{sound, quick, files, bytesRead, problems: [{kind, asset, role, path, original, detail}]}"
}
