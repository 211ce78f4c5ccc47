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
            CaptureCommand.self, DevicesCommand.self, ImportCommand.self, QueryCommand.self, ShowCommand.self, AuxCommand.self, EditCommand.self, RevertCommand.self,
            ExportCommand.self,
            AnalyzeWorkerCommand.self,
        ])
}

/// `--library`, shared by every command that touches a library.
struct LibraryOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The library folder.", discussion: "Default: $CAMLIB_LIBRARY, else $XDG_DATA_HOME/camlib (~/.local/share/camlib).",
            valueName: "path"))
    var library: String?

    var location: URL { LibraryLocation.resolve(explicit: library) }

    func open(create: Bool) throws -> PhotoLibrary {
        try PhotoLibrary(root: location, create: create)
    }

    /// The library when one exists at the location; nil otherwise (nothing is created).
    func openIfExists() throws -> PhotoLibrary? {
        FileManager.default.fileExists(atPath: location.appendingPathComponent(PhotoLibrary.catalogName).path)
            ? try open(create: false) : nil
    }
}

/// Exit statuses beyond ArgumentParser's own (0 success, 1 failure, 64 usage).
enum ExitStatus {
    /// The batch finished, but some files could not be imported.
    static let partialFailure: Int32 = 2
    static let interrupted: Int32 = 130
}

/// Hidden: the analysis worker `camlib import` starts, one per core.
struct AnalyzeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze-worker", abstract: "Internal: analyses files for an import (JSON lines on stdin/stdout).",
        shouldDisplay: false)

    func run() throws {
        // Ctrl-C reaches the whole process group; the import decides when workers stop.
        signal(SIGINT, SIG_IGN)
        AnalysisWorker.serve()
    }
}
