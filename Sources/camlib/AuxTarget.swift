import ArgumentParser
import Codecs
import Containers
import Foundation
import Library

/// Which asset or loose file an `aux` command works on.
struct AuxTarget: ParsableArguments {
    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An asset id, a library file, or a photo file anywhere.", valueName: "asset"))
    var asset: String

    enum Resolved {
        case asset(PhotoLibrary, Int64)
        case file(String)
    }

    /// The library asset when ASSET names one, else the file itself. `forWriting`: the
    /// command changes what it names: a library asset (which a read-only library
    /// refuses), or a file outside the library, even one whose bytes the library holds.
    func resolve(forWriting: Bool = false) throws -> Resolved {
        var library: PhotoLibrary?
        do {
            library = try libraryOptions.open(.read)
        } catch LibraryError.noLibrary {
            library = nil
        }
        if let library {
            // A change names what it changes: a photo outside the library is changed as
            // that file (into --out), even when the library holds a copy of its bytes.
            if forWriting, Int64(asset) == nil, FileManager.default.fileExists(atPath: asset),
                !LibraryLocation.absolute(asset).resolvingSymlinksInPath().path.hasPrefix(
                    library.root.standardizedFileURL.resolvingSymlinksInPath().path + "/")
            {
                try RegularFile.require(asset)
                return .file(asset)
            }
            do {
                let id = try library.findAsset(asset)
                if forWriting, library.isReadOnly { throw LibraryError.readOnly(path: library.root.path) }
                return .asset(library, id)
            } catch LibraryError.assetNotFound(let what) {
                guard FileManager.default.fileExists(atPath: asset), Int64(asset) == nil else {
                    throw LibraryError.assetNotFound(what)
                }
            }
        }
        guard FileManager.default.fileExists(atPath: asset) else {
            if asset.unicodeScalars.contains("\u{FFFD}") {
                throw ValidationError(
                    "\(asset): its name is not valid UTF-8 (shown with \u{FFFD} where its bytes are), and aux reads a file outside the library only by a UTF-8 name: import it first (import takes any name), or rename it (for example `convmv -f latin1 -t utf-8 --notest FILE`)")
            }
            if library == nil, Int64(asset) != nil { throw LibraryError.noLibrary(path: libraryOptions.location.path) }
            throw ValidationError("\(asset): no such file, and not an asset of the library")
        }
        try RegularFile.require(asset)
        return .file(asset)
    }
}
