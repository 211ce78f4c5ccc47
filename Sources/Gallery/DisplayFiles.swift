import Library
import Synchronization

/// Which file answers an asset's resource and kind, remembered: a resource's bytes never
/// change (files are named by their sha256), so neither does the answer. Saves the catalog
/// reads of every thumbnail a page shows again. Forgets everything past `capacity`.
final class DisplayFiles: Sendable {
    private let known = Mutex<[String: DisplayFile]>([:])
    private let capacity = 200_000

    func file(_ key: String) -> DisplayFile? {
        known.withLock { $0[key] }
    }

    func remember(_ file: DisplayFile, for key: String) {
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[key] = file
        }
    }
}
