import ArgumentParser
import Containers
import Foundation
import Library

/// Hidden: makes one file a browser is shown (a preview, a thumbnail, an H.264 proxy) for
/// `camlib serve`, which runs it as a child so that a file that crashes, hangs or exhausts
/// a decoder costs that request only. Answers one JSON line: the file, or why not.
struct DisplayWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display-worker", abstract: "Internal: makes a browser's copy of an asset's file for camlib serve.",
        shouldDisplay: false)

    @OptionGroup var libraryOptions: LibraryOptions
    @Argument var asset: Int64
    @Argument var resource: Int64
    /// A ``DisplayKind``, or `aux:TYPE` for an auxiliary image's PNG.
    @Argument var kind: String

    func run() throws {
        ChildProcess.exitWithParent()
        ChildProcess.limitMemory()
        var answer = DisplayWorkerAnswer()
        do {
            let library = try libraryOptions.open(.read)
            let file: DisplayFile
            if kind.hasPrefix("aux:"), let type = AuxiliaryImageType(rawValue: String(kind.dropFirst(4))) {
                file = try library.auxiliaryFile(asset: asset, resource: resource, type: type)
            } else if let kind = DisplayKind(rawValue: kind) {
                file = try library.displayFile(asset: asset, resource: resource, kind: kind)
            } else {
                throw DisplayError.notFound("no kind \(kind)")
            }
            (answer.path, answer.mime, answer.tag) = (file.url.path, file.mime, file.tag)
        } catch DisplayError.notFound(let what) {
            answer.notFound = what
        } catch DisplayError.cannotMake(_, _, let file, let reason) {
            (answer.cannotMake, answer.file) = (reason, file)
        } catch {
            answer.cannotMake = "\(error)"
        }
        print(String(decoding: try JSONEncoder().encode(answer), as: UTF8.self))
    }
}
