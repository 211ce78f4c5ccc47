import Foundation
import Library

/// Assets a user names on the command line (ids, paths of their files, files whose bytes
/// the library holds), for commands that take many.
enum AssetReferences {
    /// The assets named, each found on its own: one that is not found is said on stderr,
    /// and the others go on. Returns the ids and how many were not found.
    static func find(_ references: [String], in library: PhotoLibrary) -> ([Int64], Int) {
        var ids: [Int64] = []
        var unknown = 0
        for reference in references {
            do {
                ids.append(try library.findAsset(reference))
            } catch {
                Terminal.error("camlib: \(reference): \(error)")
                unknown += 1
            }
        }
        return (ids, unknown)
    }
}
