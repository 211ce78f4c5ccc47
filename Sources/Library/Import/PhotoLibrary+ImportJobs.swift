import Foundation

extension PhotoLibrary {
    /// The jobs of an import's batch that failed for good: each with the path the file
    /// was imported from (as the import's report names files) and why.
    public func failedImportJobs(batch: String) throws -> [FileProblem] {
        try catalog.read { db in
            try JobRecord.failed(in: batch, db).map { job in
                let source = try job.resourceId.flatMap { try ResourceRecord.find($0, db) }
                let path = source.flatMap { r in r.sourceDir.flatMap { dir in r.originalName.map { dir + "/" + $0 } } ?? r.path } ?? "asset \(job.assetId)"
                // The job's error names the asset and the library's file; the report names
                // the file imported, and says the asset here.
                var cause = job.lastError ?? "no reason given"
                let named = Self.describe(job, file: source?.path, "")
                if cause.hasPrefix(named) { cause.removeFirst(named.count) }
                return FileProblem(path: path, message: "imported as asset \(job.assetId), but its \(job.kind.noun) cannot be made: \(cause)")
            }
        }
    }
}
