import Foundation

extension PhotoLibrary {
    /// The files imported from `folder` (not its subfolders), as "NAME/BYTES": what a
    /// watched folder that comes back need not be read again for.
    func importedNamesAndSizes(from folder: String) throws -> Set<String> {
        try catalog.read { db in try ResourceRecord.namesAndSizes(importedFrom: folder, db) }
    }
}
