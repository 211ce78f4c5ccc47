import ArgumentParser
import Codecs
import Containers
import Foundation
import Library

struct AuxListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List an asset's auxiliary images.")

    @OptionGroup var target: AuxTarget

    @OptionGroup var output: JSONOutput<AuxListCommand>

    func run() throws {
        let aux: [AssetDescription.Aux]
        var movie: String?
        switch try target.resolve() {
        case .asset(let library, let id):
            // The PNGs it names are made now when not made yet (import records the facts
            // only), so every path it prints is there.
            if !library.isReadOnly {
                try Isolation.runInChild(describing: target.asset)
                try library.makeAuxiliaryPNGs(of: id)
            }
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
        if output.json {
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
                    a.encoding?.rangeText ?? "", a.path ?? a.problem ?? a.urn ?? "",
                ]
            }
            print(AssetTable.table(header: ["TYPE", "SIZE", "DEPTH", "SOURCE", "RANGE", "FILE"], rows: rows), terminator: "")
        }
        if let movie { print("Motion Photo movie: \(movie)") }
    }
}

extension AuxListCommand: JSONDescribed {
    static let jsonFields = "an array of {type, urn, width, height, bitDepth, path, source, channels, encoding, problem}"
}
