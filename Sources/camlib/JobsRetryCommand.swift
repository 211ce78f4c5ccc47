import ArgumentParser
import Foundation
import Library

struct JobsRetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Make failed or cancelled jobs wait again, with all their attempts.")

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Job ids, as `camlib jobs` lists them.", valueName: "job"))
    var ids: [Int64] = []

    @Flag(help: "Every failed job.")
    var failed = false

    @OptionGroup var output: JSONOutput<JobsRetryCommand>

    func validate() throws {
        if ids.isEmpty == !failed { throw ValidationError("give job ids, or --failed") }
    }

    func run() throws {
        let library = try libraryOptions.open(.write)
        let retried = try library.retryJobs(failed ? nil : ids)
        if output.json { return print(try Terminal.json(["retried": retried])) }
        let left = ids.filter { !retried.contains($0) }
        print("\(counted(retried.count, "job")) will run again.")
        if !left.isEmpty {
            Terminal.error("camlib jobs retry: not failed or cancelled, or their work waits as another job already: \(left.map(String.init).joined(separator: ", "))")
            throw ExitCode(ExitStatus.partialFailure)
        }
    }
}

extension JobsRetryCommand: JSONDescribed {
    static let jsonFields = "{retried: [job ids that wait again]}"
}
