import Codecs
import Containers
import Foundation
import Library

/// Browsers' copies (previews, thumbnails of renders, H.264 proxies) made in child camlibs
/// (`camlib display-worker`), as many at once as there are cores: decoding an untrusted
/// file there, a crash, a hang or a decoder's appetite for memory ends that child, and the
/// request gets an error saying so; the gallery goes on.
final class DisplayWorkers: Sendable {
    let executable: String
    let libraryRoot: String
    private let slots = DispatchSemaphore(value: Cores.usable)

    init(executable: String, libraryRoot: String) {
        self.executable = executable
        self.libraryRoot = libraryRoot
    }

    /// Seconds a child may take: a still's preview takes well under one; a movie's proxy
    /// a few seconds for a Live Photo, minutes for a long video.
    static func timeLimit(_ kind: DisplayKind) -> TimeInterval { kind == .movie ? 1800 : 120 }

    /// Makes the file in a child and returns it. Throws ``DisplayError``.
    func make(asset: Int64, resource: Int64, kind: DisplayKind) throws -> DisplayFile {
        try make(asset: asset, resource: resource, kind: kind, argument: kind.rawValue)
    }

    /// Makes an auxiliary image's PNG in a child and returns it. Throws ``DisplayError``.
    func makeAuxiliary(asset: Int64, resource: Int64, type: AuxiliaryImageType) throws -> DisplayFile {
        try make(asset: asset, resource: resource, kind: .preview, argument: "aux:\(type.rawValue)")
    }

    private func make(asset: Int64, resource: Int64, kind: DisplayKind, argument: String) throws -> DisplayFile {
        slots.wait()
        defer { slots.signal() }
        let what = "file \(resource) of asset \(asset)"
        let limit = Self.timeLimit(kind)
        let child: ChildCamlib
        do {
            child = try ChildCamlib(
                executable: executable, arguments: ["display-worker", "--library", libraryRoot, String(asset), String(resource), argument],
                timeLimit: limit, readErrors: false)
        } catch {
            throw DisplayError.cannotMake(kind: kind, asset: asset, file: what, reason: "cannot start \(executable): \(error)")
        }
        let data = child.output.fileHandleForReading.readDataToEndOfFile()
        let ending = child.finish()
        switch ending {
        case .timedOut:
            throw DisplayError.cannotMake(kind: kind, asset: asset, file: what, reason: "making it took longer than \(Int(limit)) seconds and was stopped")
        case .crashed(let name):
            throw DisplayError.cannotMake(kind: kind, asset: asset, file: what, reason: "the decoder crashed on it (\(name)); the gallery goes on")
        case .exited:
            break
        }
        guard let answer = try? JSONDecoder().decode(DisplayWorkerAnswer.self, from: data) else {
            throw DisplayError.cannotMake(kind: kind, asset: asset, file: what, reason: "camlib internal error: the display worker gave no answer (\(ending))")
        }
        if let notFound = answer.notFound { throw DisplayError.notFound(notFound) }
        guard let path = answer.path, let mime = answer.mime, let tag = answer.tag else {
            throw DisplayError.cannotMake(kind: kind, asset: asset, file: answer.file ?? what, reason: answer.cannotMake ?? "no reason given")
        }
        return DisplayFile(url: URL(fileURLWithPath: path), mime: mime, tag: tag)
    }
}
