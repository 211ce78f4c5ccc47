import ArgumentParser
import Foundation
import Library
import Synchronization

/// `--library`, shared by every command that touches a library.
struct LibraryOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The library folder.", discussion: "Default: $CAMLIB_LIBRARY, else $XDG_DATA_HOME/camlib (~/.local/share/camlib).",
            valueName: "path"))
    var library: String?

    var location: URL { LibraryLocation.resolve(explicit: library) }

    /// Opens the library for what the command needs. Says on stderr when the catalog is
    /// upgraded to this camlib's schema first, and anything else worth knowing about it.
    func open(_ mode: PhotoLibrary.OpenMode) throws -> PhotoLibrary {
        try Self.open(location, mode)
    }

    /// ``open(_:)`` for a library located already.
    static func open(_ root: URL, _ mode: PhotoLibrary.OpenMode) throws -> PhotoLibrary {
        let library = try PhotoLibrary(root: root, mode: mode) { migrations in
            Terminal.error("camlib: upgrading the catalog of \(root.path) for this camlib (\(migrations.joined(separator: ", "))); in a large library this takes a little while, once")
        }
        for note in library.catalog.notes { Terminal.error("camlib: \(note)") }
        OpenLibraries.add(library)
        return library
    }

    /// The library when one exists at the location, opened for reading; nil otherwise
    /// (nothing is created).
    func openIfExists() throws -> PhotoLibrary? {
        PhotoLibrary.exists(at: location) ? try open(.read) : nil
    }
}

/// The libraries this process opened, closed when it exits (however the command ends, but
/// by a signal): their catalogs are checkpointed, so a library at rest has everything in
/// `catalog.sqlite` and nothing pending in its -wal file.
enum OpenLibraries {
    private static let open = Mutex<[PhotoLibrary]>([])

    static func add(_ library: PhotoLibrary) {
        let first = open.withLock { libraries in
            libraries.append(library)
            return libraries.count == 1
        }
        if first { atexit { OpenLibraries.closeAll() } }
    }

    static func closeAll() {
        for library in open.withLock({ libraries in defer { libraries.removeAll() }; return libraries }) {
            try? library.catalog.close()
        }
    }
}
