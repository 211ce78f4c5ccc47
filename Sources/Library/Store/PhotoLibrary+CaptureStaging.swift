import Foundation

extension PhotoLibrary {
    /// Where `camlib capture` writes files before importing them: one folder per capture
    /// process (`incoming/PID-TAG`); what an interrupted capture left is imported by the
    /// next one.
    public var captureStaging: URL { layout.captureStaging }

    /// A new staging folder for this process's captures.
    public func newCaptureStaging() throws -> URL {
        let url = captureStaging.appendingPathComponent("\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The finished files in staging folders of capture processes that no longer run
    /// (their unfinished `.part` files are deleted, and empty folders removed). A folder
    /// of a running capture is left alone.
    public func abandonedCaptureFiles() -> [String] {
        let fm = FileManager.default
        var files: [String] = []
        for folder in (try? fm.contentsOfDirectory(atPath: captureStaging.path)) ?? [] {
            guard let dash = folder.firstIndex(of: "-"), let pid = Int32(folder[..<dash]), pid != getpid(), !Self.isRunning(pid) else { continue }
            let path = captureStaging.appendingPathComponent(folder).path
            for name in ((try? fm.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                if name.hasSuffix(".part") {
                    unlink(path + "/" + name)
                } else {
                    files.append(path + "/" + name)
                }
            }
            rmdir(path)  // only when empty
        }
        return files
    }
}
