import ArgumentParser
import Codecs
import Containers
import Foundation
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
