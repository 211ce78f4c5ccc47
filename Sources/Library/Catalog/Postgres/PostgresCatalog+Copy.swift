import Foundation

extension PostgresCatalog {
    /// Copies a SQLite catalog into this one, which must be empty, and checks the copy
    /// (each table's rows and checksum, the summaries included) before committing it.
    /// Returns each table's rows and checksum.
    public func copy(from catalog: Catalog, progress: (CatalogCopy.Progress) -> Void = { _ in }) throws -> [CatalogCopyTable] {
        try CatalogCopy(source: catalog, target: self).run(progress: progress).tables
    }
}

/// One table of a checked catalog copy.
public typealias CatalogCopyTable = CatalogCopy.Report.Table
