import Foundation

extension PhotoLibrary {
    /// What became of a capture's files: the import's report (nil when there was nothing
    /// to import) and the files that stay in staging because they were not imported.
    public struct CaptureImport: Sendable {
        public var report: ImportReport?
        /// The files that failed to import; they stay where they are, and the next capture
        /// into this library tries them again.
        public var keptFiles: [String]
        public var succeeded: Bool { keptFiles.isEmpty }
    }

    /// Imports the files a capture wrote into `staging` (finished files only: `.part`
    /// files are still being written) together with `leftovers`, the finished files of
    /// interrupted captures (``abandonedCaptureFiles()``). Each file imported is deleted
    /// from staging, and the staging folder with it once empty; a file that fails stays,
    /// named in the report's errors. Throws only when the import could not run at all
    /// (then every file stays).
    public func importCaptures(from staging: URL, leftovers: [String] = [], options: ImportOptions = ImportOptions()) throws -> CaptureImport {
        defer { rmdir(staging.path) }  // only when empty
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []).filter { !$0.hasSuffix(".part") }.sorted()
        let paths = leftovers + names.map { staging.appendingPathComponent($0).path }
        guard !paths.isEmpty else { return CaptureImport(report: nil, keptFiles: []) }
        let report = try Importer(library: self, options: options).run(paths: paths)
        let failed = Set(report.errors.map(\.path))
        for path in paths where !failed.contains(path) {
            unlink(path)
            rmdir(URL(fileURLWithPath: path).deletingLastPathComponent().path)  // a leftover folder, once empty
        }
        return CaptureImport(report: report, keptFiles: paths.filter { failed.contains($0) })
    }
}
