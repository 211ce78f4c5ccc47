import ArgumentParser
import Codecs
import Containers
import Foundation
import Library

struct AuxAttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Add a depth map or matte (a gray PNG) to a HEIC or JPEG, without re-encoding the photo.",
        discussion: Help.reflow(
            """
            The image is given as `camlib aux extract` writes them: one gray channel, in the
            photo's displayed orientation and shape. The photo's own coded data is copied
            bit for bit.

            In a HEIC it becomes a monochrome HEVC item (Main 10/12 for 10/12-bit PNGs)
            with the type's auxC URN and an auxl reference to the photo, turned with the
            photo's irot/imir; lossless unless --lossy.

            In a JPEG it becomes what an iPhone's Portrait JPEG carries: a gray JPEG after
            the photo, listed in the photo's MPF index, with Apple's apdi XMP saying what
            it is (and, for depth, the distances of --z-near/--z-far as FloatMinValue and
            FloatMaxValue). JPEG keeps 8 bits and is not lossless: it is stored at quality
            100 (or --quality with --lossy) and the largest error is printed. A Motion
            Photo JPEG is refused: its movie must stay where readers look for it.

            Examples:
              camlib aux attach photo.heic --type depth --from d.png --out new.heic
              camlib aux attach photo.jpg --type portrait-matte --from m.png --out new.jpg
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

    @Option(name: .long, help: ArgumentHelp("The gray PNG to attach (8-bit; for a HEIC also 16-bit with up to 12 significant bits).", valueName: "image.png"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("Where to write the new file, in the photo's format (required for a file outside the library).", valueName: "new-file"))
    var out: String?

    @Flag(name: .long, help: "Code the image lossily (smaller); the default keeps every sample exactly in a HEIC, and uses quality 100 in a JPEG.")
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

    @OptionGroup var output: JSONOutput<AuxAttachCommand>

    struct Output: Encodable {
        var path: String
        var format: String
        var type: AuxiliaryImageType
        var urn: String?
        var width: Int?
        var height: Int?
        var bitDepth: Int?
        var maxError: Int
        /// How it was stored, when the user should know (a JPEG's are not lossless).
        var note: String?
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
        let resolved = try target.resolve(forWriting: true)
        try RegularFile.require(from)
        switch resolved {
        case .asset(let library, let id):
            (written, result) = try library.attachAuxiliaryImage(to: id, type: type, from: from, options: options, depthRange: depthRange)
            if let out {
                try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: out), overwrite: force)
            }
        case .file(let path):
            guard let out else { throw ValidationError("--out NEW_FILE is required for a file outside the library") }
            result = try AuxiliaryAttacher.attach(toFile: path, type: type, from: from, options: options, depthRange: depthRange)
            try AuxiliaryAttacher.write(result, to: URL(fileURLWithPath: out), overwrite: force)
            written = URL(fileURLWithPath: out).path
        }
        let a = result.attached
        if output.json {
            print(
                try Terminal.json(
                    Output(
                        path: written, format: result.format.fileExtension, type: type, urn: a.urn, width: a.width, height: a.height,
                        bitDepth: a.bitDepth, maxError: result.maxError, note: result.note)))
        } else {
            let how = result.format == .jpeg ? "an MPF image (apdi \(type.rawValue))" : a.urn ?? "?"
            print("\(written): \(type.rawValue) \(a.width ?? 0)x\(a.height ?? 0) attached as \(how)\(result.maxError == 0 ? " (lossless)" : " (max error \(result.maxError))")")
            if let note = result.note { Terminal.error("note: \(note)") }
        }
    }
}

extension AuxAttachCommand: JSONDescribed {
    static let jsonFields = "{path, format, type, urn, width, height, bitDepth, maxError, note}"
}
