import ArgumentParser
import Codecs
import Containers
import Foundation
import Library

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

    @OptionGroup var output: JSONOutput<AuxExtractCommand>

    func run() throws {
        try Isolation.runInChild(describing: target.asset)
        let folder = URL(fileURLWithPath: out)
        try FileAccessError.makeFolder(folder, for: "--out")
        let types = type.isEmpty ? nil : Set(type)
        let results: [AuxiliaryExtraction]
        switch try target.resolve() {
        case .asset(let library, let id):
            results = try library.extractAuxiliaryImages(of: id, types: types, to: folder, overwrite: force)
        case .file(let path):
            results = try LooseFileAuxiliaryImages.extract(path: path, types: types, to: folder, overwrite: force)
        }
        if output.json {
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

extension AuxExtractCommand: JSONDescribed {
    static let jsonFields = "an array of {type, source, path, problem}"
}
