import ArgumentParser
import Foundation
import Library

struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "The queue of derived work: what waits, what runs where, what failed and why.",
        discussion: Help.reflow(
            """
            Thumbnails, browsers' previews and proxies, auxiliary images' PNGs and edits'
            renders are jobs in the catalog, run by `camlib worker`, by `camlib import` for
            the jobs it made, and by `camlib serve`. A job that fails is tried again after a
            pause (2 s, 8 s, …), and after its last attempt (3) stays failed with its error,
            which names the asset and the file.
            Examples:
              camlib jobs
              camlib jobs retry --failed
              camlib jobs cancel 42
            """),
        subcommands: [JobsListCommand.self, JobsRetryCommand.self, JobsCancelCommand.self],
        defaultSubcommand: JobsListCommand.self)
}
