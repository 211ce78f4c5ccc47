import ArgumentParser
import Foundation
import Library

@main
struct Camlib: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camlib",
        abstract: "A camera and photo library for Linux.",
        discussion: Help.reflow(
            """
            camlib keeps photos, Live Photos and movies in a library: the original files,
            untouched and read-only, plus a SQLite catalog you can query with sqlite3.

            The library is --library PATH, else $CAMLIB_LIBRARY, else
            $XDG_DATA_HOME/camlib (~/.local/share/camlib).
            """),
        version: "0.1.0",
        subcommands: [
            InitCommand.self, CaptureCommand.self, DevicesCommand.self, ImportCommand.self, QueryCommand.self, ShowCommand.self, AuxCommand.self, EditCommand.self, RevertCommand.self,
            ExportCommand.self, TrashCommand.self, RestoreCommand.self, VerifyCommand.self, RepairCommand.self,
            FavoriteCommand.self, AlbumCommand.self, KeywordCommand.self, ServeCommand.self, WorkerCommand.self, JobsCommand.self, CatalogCommand.self,
            AnalyzeWorkerCommand.self, DisplayWorkerCommand.self, RenderReferenceCommand.self,
        ])

    /// `query` and `show` straight to their own parsing when they can (``CatalogReads``);
    /// everything else through ArgumentParser's root as usual.
    /// Foundation's file errors are said in words (``FileAccessError``) wherever they come from.
    static func main() {
        // A parent that blocks these (a test runner, a service manager's helper) passes
        // its mask on through exec: Ctrl-C and SIGTERM would never reach camlib's
        // handlers, and `kill` would not stop a worker or the gallery.
        var stops = sigset_t()
        sigemptyset(&stops)
        for stop in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stops, stop) }
        pthread_sigmask(SIG_UNBLOCK, &stops, nil)
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if let work = CatalogReads.parse(arguments) {
                try work()
            } else {
                // What ArgumentParser's own main does, with the errors translated.
                var command = try parseAsRoot(arguments)
                try command.run()
            }
        } catch {
            exit(withError: FileAccessError.from(error) ?? error)
        }
    }
}
