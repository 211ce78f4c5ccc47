import ArgumentParser
import Foundation
import Library

struct JobsCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel waiting or running jobs; a running one's worker then records nothing of it.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Job ids, as `camlib jobs` lists them.", valueName: "job"))
    var ids: [Int64]

    @OptionGroup var output: JSONOutput<JobsCancelCommand>

    func run() throws {
        let library = try libraryOptions.open(.write)
        let cancelled = try library.cancelJobs(ids)
        if output.json { return print(try Terminal.json(["cancelled": cancelled])) }
        print("\(counted(cancelled.count, "job")) cancelled.")
        let left = ids.filter { !cancelled.contains($0) }
        if !left.isEmpty {
            Terminal.error("camlib jobs cancel: not waiting or running: \(left.map(String.init).joined(separator: ", "))")
            throw ExitCode(ExitStatus.partialFailure)
        }
    }
}

extension JobsCancelCommand: JSONDescribed {
    static let jsonFields = "{cancelled: [job ids cancelled]}"
}
