import ArgumentParser
import Containers
import Foundation
import Codecs
import Library

extension AuxiliaryImageType: ExpressibleByArgument {
    public init?(argument: String) { self.init(optionName: argument) }
    public static var allValueStrings: [String] { allCases.map(\.optionName) }
}

struct AuxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aux",
        abstract: "Auxiliary images: depth, disparity, Portrait mattes, HDR gain maps.",
        discussion: Help.reflow(
            """
            ASSET is an asset of the library (an id, a path of one of its files, or a file
            whose bytes the library holds) or any HEIC/JPEG file outside it.

            Extracted images are lossless PNGs (8- or 16-bit) in the photo's displayed
            orientation. `camlib aux list --json` gives, for depth and disparity, the
            numbers that turn samples into metres (encoding.floatMin/floatMax, units,
            toMetres).
            """),
        subcommands: [AuxListCommand.self, AuxExtractCommand.self, AuxAttachCommand.self])
}

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
    /// command changes a library asset, which a read-only library refuses.
    func resolve(forWriting: Bool = false) throws -> Resolved {
        var library: PhotoLibrary?
        do {
            library = try libraryOptions.open(.read)
        } catch LibraryError.noLibrary {
            library = nil
        }
        if let library {
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
            if library == nil, Int64(asset) != nil { throw LibraryError.noLibrary(path: libraryOptions.location.path) }
            throw ValidationError("\(asset): no such file, and not an asset of the library")
        }
        return .file(asset)
    }
}

struct AuxListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List an asset's auxiliary images.")

    @OptionGroup var target: AuxTarget

    @Flag(name: .long, help: "Print JSON: an array of {type, urn, width, height, bitDepth, path, source, channels, encoding, problem}.")
    var json = false

    func run() throws {
        let aux: [AssetDescription.Aux]
        var movie: String?
        switch try target.resolve() {
        case .asset(let library, let id):
            let description = try library.describe([id]).first
            aux = description?.aux ?? []
            if description?.kind == .motion, let m = description?.resources.first(where: { $0.role == .pairedVideo }) {
                movie = m.path
            }
        case .file(let path):
            try Isolation.runInChild(describing: path)
            let found = try LooseFileAuxiliaryImages.describe(path: path)
            aux = found.aux
            movie = found.movie.map { "\($0.range.count) bytes at offset \($0.range.lowerBound) (\($0.declaredBy))" }
            for warning in found.warnings { Terminal.error("camlib: \(path): \(warning)") }
        }
        if json {
            print(try Terminal.json(aux))
            return
        }
        if aux.isEmpty {
            print("No auxiliary images.")
        } else {
            let rows = aux.map { a -> [String] in
                [
                    a.type.rawValue, a.width.flatMap { w in a.height.map { "\(w)x\($0)" } } ?? "-",
                    a.bitDepth.map { "\($0)-bit" } ?? "-", a.source,
                    a.encoding.flatMap(Self.range) ?? "", a.path ?? a.problem ?? a.urn ?? "",
                ]
            }
            print(AssetTable.table(header: ["TYPE", "SIZE", "DEPTH", "SOURCE", "RANGE", "FILE"], rows: rows), terminator: "")
        }
        if let movie { print("Motion Photo movie: \(movie)") }
    }

    static func range(_ e: AuxiliaryEncoding) -> String? {
        if let lo = e.floatMin, let hi = e.floatMax { return "\(lo)...\(hi) \(e.units ?? "")".trimmingCharacters(in: .whitespaces) }
        if let near = e.near, let far = e.far { return "near \(near) far \(far)" }
        return nil
    }

}

struct AuxExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Write an asset's auxiliary images as PNG files, named by type.",
        discussion: Help.reflow(
            """
            Examples:
              camlib aux extract 12 --out depth/
              camlib aux extract IMG_8606.HEIC --type portrait-matte --type skin-matte --out mattes/
            `--type depth` also takes disparity maps. Existing files are not replaced
            unless --force is given.
            """))

    @OptionGroup var target: AuxTarget

    @Option(name: .long, help: ArgumentHelp("Only this type; repeatable.", valueName: "type"))
    var type: [AuxiliaryImageType] = []

    @Option(name: .long, help: ArgumentHelp("The folder to write into (created if missing).", valueName: "dir"))
    var out: String

    @Flag(name: .long, help: "Replace existing files.")
    var force = false

    @Flag(name: .long, help: "Print JSON: an array of {type, source, path, problem}.")
    var json = false

    func run() throws {
        try Isolation.runInChild(describing: target.asset)
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let types = type.isEmpty ? nil : Set(type)
        let results: [AuxiliaryExtraction]
        switch try target.resolve() {
        case .asset(let library, let id):
            results = try library.extractAuxiliaryImages(of: id, types: types, to: folder, overwrite: force)
        case .file(let path):
            results = try LooseFileAuxiliaryImages.extract(path: path, types: types, to: folder, overwrite: force)
        }
        if json {
            print(try Terminal.json(results))
        } else {
            for r in results where r.path != nil { print("\(r.type.rawValue): \(r.path!)") }
        }
        for r in results where r.path == nil {
            Terminal.error("camlib: \(target.asset): \(r.type.rawValue) (\(r.source)): \(r.problem ?? "not written")")
        }
        if results.isEmpty {
            Terminal.error("camlib: \(target.asset): no auxiliary images\(types == nil ? "" : " of that type")")
            throw ExitCode(1)
        }
        if results.contains(where: { $0.path == nil }) { throw ExitCode(ExitStatus.partialFailure) }
    }
}

struct AuxAttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Add a depth map or matte (a gray PNG) to a HEIC, without re-encoding the photo.",
        discussion: Help.reflow(
            """
            The image is given as `camlib aux extract` writes them: one gray channel, in the
            photo's displayed orientation and shape. It becomes a monochrome HEVC item
            with the type's auxC URN and an auxl reference to the photo, turned with the
            photo's irot/imir; the photo's own coded data is copied bit for bit.

            Examples:
              camlib aux attach photo.heic --type depth --from d.png --out new.heic
              camlib aux attach 12 --type portrait-matte --from matte.png
              camlib aux attach 12 --type depth --from d.png --z-near 0.3 --z-far 8

            On a library asset the attach is a new version, like an edit: the original stays
            untouched, the new file becomes the asset's current renderedPhoto, its image is
            listed by `camlib aux list`, later edits keep it, and `camlib revert` goes back
            to the original.
            """))

    @OptionGroup var target: AuxTarget

    @Option(name: .long, help: ArgumentHelp("What the image is: depth, disparity, portrait-matte, skin-matte, hair-matte, teeth-matte, glasses-matte, sky-matte, gain-map.", valueName: "type"))
    var type: AuxiliaryImageType

    @Option(name: .long, help: ArgumentHelp("The gray PNG to attach (8-bit, or 16-bit with up to 12 significant bits).", valueName: "image.png"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("Where to write the new HEIC (required for a file outside the library).", valueName: "new.heic"))
    var out: String?

    @Flag(name: .long, help: "Code the image lossily (smaller); the default keeps every sample exactly.")
    var lossy = false

    @Option(name: .long, help: "Quality 0-100 with --lossy.")
    var quality = 90

    @Option(
        name: .customLong("z-near"),
        help: ArgumentHelp("With --type depth: the distance in metres that sample value 0 stands for (needs --z-far).", valueName: "metres"))
    var zNear: Double?

    @Option(
        name: .customLong("z-far"),
        help: ArgumentHelp(
            "With --type depth: the distance in metres the largest sample value stands for; values in between are linear (ISO 23008-2 uniform Z, which libheif and camlib read back).",
            valueName: "metres"))
    var zFar: Double?

    @Flag(name: .long, help: "Replace --out if it exists.")
    var force = false

    @Flag(name: .long, help: "Print JSON: {path, type, urn, width, height, bitDepth, maxError}.")
    var json = false

    struct Output: Encodable {
        var path: String
        var type: AuxiliaryImageType
        var urn: String?
        var width: Int?
        var height: Int?
        var bitDepth: Int?
        var maxError: Int
    }

    func validate() throws {
        guard (zNear == nil) == (zFar == nil) else { throw ValidationError("--z-near and --z-far go together") }
        if zNear != nil, type != .depth { throw ValidationError("--z-near and --z-far describe a depth map (--type depth)") }
    }

    func run() throws {
        try Isolation.runInChild(describing: target.asset)
        let depthRange: ClosedRange<Double>?
        if let zNear, let zFar {
            guard zNear > 0, zNear < zFar, zFar.isFinite else { throw ValidationError("--z-near must be above 0 and below --z-far (metres)") }
            depthRange = zNear...zFar
        } else {
            depthRange = nil
        }
        var options = HEIFAuxiliaryWriter.Options()
        options.lossless = !lossy
        options.quality = quality
        let written: String
        let result: AuxiliaryAttacher.Result
        switch try target.resolve(forWriting: true) {
        case .asset(let library, let id):
            (written, result) = try library.attachAuxiliaryImage(to: id, type: type, from: from, options: options, depthRange: depthRange)
            if let out {
                try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: out), overwrite: force)
            }
        case .file(let path):
            guard let out else { throw ValidationError("--out NEW.heic is required for a file outside the library") }
            result = try AuxiliaryAttacher.attach(toFile: path, type: type, from: from, options: options, depthRange: depthRange)
            try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: out), overwrite: force)
            written = URL(fileURLWithPath: out).path
        }
        let a = result.attached
        if json {
            print(try Terminal.json(Output(path: written, type: type, urn: a.urn, width: a.width, height: a.height, bitDepth: a.bitDepth, maxError: result.maxError)))
        } else {
            print("\(written): \(type.rawValue) \(a.width ?? 0)x\(a.height ?? 0) attached as \(a.urn ?? "?")\(result.maxError == 0 ? " (lossless)" : " (max error \(result.maxError))")")
        }
    }
}
