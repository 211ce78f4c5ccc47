import ArgumentParser
import Filters
import Foundation
import Library

/// Hidden: what an edit looks like before encoding, for bench/edit.py's quality figures.
struct RenderReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-reference",
        abstract: "Internal: writes a file's filtered still or movie frames as lossless PNG (display orientation) into a folder.",
        shouldDisplay: false)

    @Argument(help: "A photo or movie file (not a library asset).")
    var file: String

    @Option(name: .long, help: "A filter, applied in order; repeatable.")
    var filter: [String] = []

    @Option(name: .long, help: "The folder to write still.png or frame-NNNNN.png into.")
    var output: String

    func run() throws {
        let recipe = FilterRecipe(steps: try filter.map(FilterStep.init(parsing:)))
        let files = try RenderReference.write(path: file, recipe: recipe, to: URL(fileURLWithPath: output))
        print(files.count)
    }
}
